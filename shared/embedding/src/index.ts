export type { Embedder } from './port.ts';
