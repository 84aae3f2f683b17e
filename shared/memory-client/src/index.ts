export { apiErrorFrom, MemoryApiClient, type MemoryApiClientOptions, MemoryApiError } from './client.ts';
