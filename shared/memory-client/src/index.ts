export { MemoryApiClient, type MemoryApiClientOptions, MemoryApiError } from './client.ts';
