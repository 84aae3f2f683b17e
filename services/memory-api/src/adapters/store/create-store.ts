import type { Logger } from '@hindsight/logger';
import type { MemoryApiConfig } from '../../config.ts';
import type { MemoryStore } from '../../memory/store-port.ts';
import { SqliteMemoryStore } from './sqlite/store.ts';

/** Picks the long-term store adapter named by VECTOR_STORE. */
export function createMemoryStore(config: MemoryApiConfig, log: Logger): MemoryStore {
  log.info({ backend: config.VECTOR_STORE, path: config.DATABASE_PATH }, 'opening the long-term store');
  return new SqliteMemoryStore(config.DATABASE_PATH);
}
