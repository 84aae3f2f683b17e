import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteMemoryStore } from '../../../src/adapters/store/sqlite/store.ts';
import { runMemoryStoreContract } from './contract.ts';

runMemoryStoreContract('sqlite', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    return {
      store: new SqliteMemoryStore(path),
      reopen: () => new SqliteMemoryStore(path),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
});
