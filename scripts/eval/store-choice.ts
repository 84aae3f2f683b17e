import { join } from 'node:path';
import { type PgliteServer, spawnPgliteServer } from '@hindsight/testing';
import { describeTarget } from '../../services/memory-api/src/adapters/store/postgres/database.ts';
import { PostgresMemoryStore } from '../../services/memory-api/src/adapters/store/postgres/store.ts';
import { SqliteMemoryStore } from '../../services/memory-api/src/adapters/store/sqlite/store.ts';
import type { MemoryStore } from '../../services/memory-api/src/memory/store-port.ts';

export const STORES = ['sqlite', 'postgres'] as const;
export type StoreName = (typeof STORES)[number];

/**
 * The long-term store an eval or bench run puts under the memory-api it starts (`--store`):
 * the embedded SQLite file, or PostgreSQL — the server in DATABASE_URL, or else a PGlite server
 * (PostgreSQL 18 + pgvector 0.8 in WebAssembly, one query at a time) started for the run.
 */
export interface StoreChoice {
  name: StoreName;
  /** What a spawned memory-api is told on top of its environment. */
  env: Record<string, string>;
  /** For reports: which store, where. */
  description: string;
  /** The same store opened in this process (the bench's raw-store floor), given memory-api's data dir. */
  open(dataDir: string): MemoryStore;
  close(): Promise<void>;
}

export function parseStoreName(value: string | undefined): StoreName {
  if (value === undefined) return 'sqlite';
  if ((STORES as readonly string[]).includes(value)) return value as StoreName;
  throw new Error(`--store takes ${STORES.join(' or ')} (got "${value}")`);
}

export async function chooseStore(name: StoreName): Promise<StoreChoice> {
  if (name === 'sqlite') {
    return {
      name,
      env: { VECTOR_STORE: 'sqlite' },
      description: 'SQLite (embedded file)',
      open: (dataDir) => new SqliteMemoryStore(join(dataDir, 'memory.db')),
      close: async () => undefined,
    };
  }
  const given = process.env.DATABASE_URL;
  const pglite: PgliteServer | undefined = given ? undefined : await spawnPgliteServer();
  const url = given ?? (pglite as PgliteServer).url;
  const schema = process.env.DATABASE_SCHEMA || 'hindsight';
  return {
    name,
    env: { VECTOR_STORE: 'postgres', DATABASE_URL: url, DATABASE_SCHEMA: schema },
    description: given
      ? `PostgreSQL at ${describeTarget(url)}`
      : `PostgreSQL 18 + pgvector 0.8 (PGlite over the wire protocol, one query at a time) at ${describeTarget(url)}`,
    open: () => new PostgresMemoryStore({ connectionString: url, schema, poolSize: 2, statementTimeoutMs: 60_000 }),
    close: async () => pglite?.stop(),
  };
}
