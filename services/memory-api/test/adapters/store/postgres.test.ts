import { randomBytes } from 'node:crypto';
import { type PgliteServer, startPgliteServer } from '@hindsight/testing';
import { keywordTokens } from '@hindsight/text';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryStore, type PostgresStoreOptions } from '../../../src/adapters/store/postgres/store.ts';
import { axisVector, makeRecord } from '../../support/records.ts';
import { startTcpProxy } from '../../support/tcp-proxy.ts';
import { runMemoryStoreContract } from './contract.ts';
import { runReindexContract } from './reindex-contract.ts';

/**
 * The store contract on PostgreSQL: always against PGlite (PostgreSQL 18 + pgvector 0.8 in
 * WebAssembly) served over the real wire protocol, and against the server in TEST_DATABASE_URL
 * when one is named. Each test works in a schema of its own and drops it afterwards.
 */
function schemaFactory(
  url: () => string,
  poolSize: number,
): {
  create(): Promise<{ store: PostgresMemoryStore; reopen: () => PostgresMemoryStore; cleanup: () => Promise<void> }>;
} {
  const makeStore = (schema: string) =>
    new PostgresMemoryStore({ connectionString: url(), schema, poolSize, statementTimeoutMs: 10_000 });
  return {
    async create() {
      const schema = `hstest_${randomBytes(5).toString('hex')}`;
      return {
        store: makeStore(schema),
        reopen: () => makeStore(schema),
        cleanup: async () => {
          const admin = new pg.Client({ connectionString: url() });
          await admin.connect();
          try {
            await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          } finally {
            await admin.end();
          }
        },
      };
    },
  };
}

let pglite: PgliteServer;
beforeAll(async () => {
  pglite = await startPgliteServer();
}, 60_000);
afterAll(async () => {
  await pglite?.stop();
});

runMemoryStoreContract(
  'postgres (PGlite over the wire protocol)',
  schemaFactory(() => pglite.url, 4),
);
runReindexContract('postgres (PGlite over the wire protocol)', {
  async create() {
    const { reopen, cleanup } = await schemaFactory(() => pglite.url, 2).create();
    return { store: reopen, cleanup };
  },
});

const external = process.env.TEST_DATABASE_URL;
if (external === undefined || external === '') {
  console.warn(
    'SKIPPED: MemoryStore contract — postgres (TEST_DATABASE_URL) (not set; e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/hindsight_test with pgvector installed)',
  );
  describe.skip('MemoryStore contract — postgres (TEST_DATABASE_URL) (skipped: TEST_DATABASE_URL not set)', () =>
    undefined);
} else {
  runMemoryStoreContract(
    'postgres (TEST_DATABASE_URL)',
    schemaFactory(() => external, 8),
  );
  runReindexContract('postgres (TEST_DATABASE_URL)', {
    async create() {
      const { reopen, cleanup } = await schemaFactory(() => external, 2).create();
      return { store: reopen, cleanup };
    },
  });
}

const SPACE = { model: 'test-8', dimension: 8 };
const freshSchema = () => `hstest_${randomBytes(5).toString('hex')}`;

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

describe('PostgresMemoryStore — beyond the port (PGlite)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const openStore = async (options: Partial<PostgresStoreOptions> = {}) => {
    const schema = options.schema ?? freshSchema();
    const store = new PostgresMemoryStore({
      connectionString: pglite.url,
      schema,
      poolSize: 2,
      statementTimeoutMs: 10_000,
      retry: { retries: 3, baseDelayMs: 10, maxDelayMs: 50 },
      ...options,
    });
    await store.open(SPACE);
    cleanups.push(async () => {
      await store.close();
      await withAdmin(pglite.url, (admin) => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    });
    return { store, schema };
  };
  const throughProxy = async () => {
    const proxy = await startTcpProxy(pglite.port);
    cleanups.push(() => proxy.close());
    return { proxy, url: `postgres://postgres@127.0.0.1:${proxy.port}/postgres` };
  };

  it('keeps the tenants apart in the database too: row-level security on a per-transaction tenant', async () => {
    const { store, schema } = await openStore();
    const mine = makeRecord({ content: 'only for tenant one', tenant: 't1' });
    await store.commit({ inserts: [{ record: mine, vector: axisVector(0) }], updates: [] });
    const role = `hsapp_${randomBytes(4).toString('hex')}`;
    await withAdmin(pglite.url, async (admin) => {
      // Superusers bypass row-level security: look through a plain role, as a deployment should connect.
      await admin.query(`CREATE ROLE ${role} NOSUPERUSER NOBYPASSRLS`);
      await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
      await admin.query(`GRANT SELECT, INSERT ON ${schema}.memories TO ${role}`);
      try {
        await admin.query('BEGIN');
        await admin.query(`SET LOCAL ROLE ${role}`);
        const visible = async (tenant: string | null) => {
          if (tenant !== null) await admin.query("SELECT set_config('hindsight.tenant', $1, true)", [tenant]);
          return Number((await admin.query(`SELECT count(*) AS n FROM ${schema}.memories`)).rows[0].n);
        };
        // No tenant named: a query that forgot its WHERE clause sees nothing.
        expect(await visible(null)).toBe(0);
        expect(await visible('t2')).toBe(0);
        expect(await visible('t1')).toBe(1);
        await admin.query("SELECT set_config('hindsight.tenant', 't2', true)");
        // Writing a row of another tenant than the transaction's is refused.
        await expect(
          admin.query(
            `INSERT INTO ${schema}.memories (id, tenant, user_id, layer, category, content, tags, metadata, confidence,
               proof_count, source, occurred_at, created_at, updated_at, status, history, access_count, decay_weight,
               content_hash, embedding_model, embedding, keyword_terms, keyword_keys)
             VALUES ('x', 't1', 'u1', 'semantic', 'fact', 'smuggled', '{}', '{}', 1, 1, '{}', now(), now(), now(),
               'active', '[]', 0, 1, 'h', 'test-8', '[1,0,0,0,0,0,0,0]', '{}', '{}')`,
          ),
        ).rejects.toThrow(/row-level security/);
      } finally {
        await admin.query('ROLLBACK');
        await admin.query(`REVOKE ALL ON ${schema}.memories FROM ${role}`);
        await admin.query(`REVOKE ALL ON SCHEMA ${schema} FROM ${role}`);
        await admin.query(`DROP ROLE ${role}`);
      }
    });
  });

  it('rides out connections the network drops, idle or in the middle of a call', async () => {
    const { proxy, url } = await throughProxy();
    const { store } = await openStore({ connectionString: url });
    const record = makeRecord({ content: 'survives a dropped connection' });
    await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });

    proxy.cutAll();
    expect((await store.get('t1', record.id))?.content).toBe(record.content);

    proxy.cutNextMessage();
    const again = makeRecord({ content: 'written across a cut' });
    await store.commit({ inserts: [{ record: again, vector: axisVector(1) }], updates: [] });
    proxy.cutNextMessage();
    const hits = await store.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('dropped connection'), 5);
    expect(hits.map((h) => h.id)).toEqual([record.id]);
    expect(proxy.cuts).toBeGreaterThanOrEqual(3);
    expect(await store.count({ tenant: 't1' })).toBe(2);
  });

  it('neither loses nor doubles a write whose COMMIT reply is lost, or whose COMMIT never arrives', async () => {
    const { proxy, url } = await throughProxy();
    const { store } = await openStore({ connectionString: url });

    proxy.failNextCommit('drop-reply');
    const committed = makeRecord({ content: 'the server committed, the client never heard' });
    await store.commit({ inserts: [{ record: committed, vector: axisVector(0) }], updates: [] });

    proxy.failNextCommit('cut-before-server');
    const retried = makeRecord({ content: 'the commit never reached the server' });
    await store.commit({ inserts: [{ record: retried, vector: axisVector(1) }], updates: [] });

    expect(proxy.cuts).toBe(2);
    const stored = await store.list({ tenant: 't1' }, 10);
    expect(stored.items.map((r) => r.id).sort()).toEqual([committed.id, retried.id].sort());
    expect(await store.get('t1', committed.id)).toEqual(committed);
  });

  it('repeats a transaction the server aborts as a serialization failure or deadlock, and only those', async () => {
    const { store, schema } = await openStore();
    // A trigger makes the server itself fail the first attempt(s); a sequence counts attempts across rollbacks.
    const failWith = (code: string, times: number) =>
      withAdmin(pglite.url, async (admin) => {
        await admin.query(`DROP SEQUENCE IF EXISTS ${schema}.attempts; CREATE SEQUENCE ${schema}.attempts`);
        await admin.query(
          `CREATE OR REPLACE FUNCTION ${schema}.injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             IF nextval('${schema}.attempts') <= ${times} THEN
               RAISE EXCEPTION 'injected failure' USING ERRCODE = '${code}';
             END IF;
             RETURN NEW;
           END $$`,
        );
        await admin.query(
          `CREATE OR REPLACE TRIGGER injected_failure BEFORE INSERT ON ${schema}.memories
           FOR EACH ROW EXECUTE FUNCTION ${schema}.injected_failure()`,
        );
      });
    const attempts = () =>
      withAdmin(pglite.url, async (admin) =>
        Number((await admin.query(`SELECT last_value FROM ${schema}.attempts`)).rows[0].last_value),
      );

    await failWith('40001', 1);
    const first = makeRecord({ content: 'written after a serialization failure' });
    await store.commit({ inserts: [{ record: first, vector: axisVector(0) }], updates: [] });
    expect(await attempts()).toBe(2);

    await failWith('40P01', 2);
    const second = makeRecord({ content: 'written after two deadlocks' });
    await store.commit({ inserts: [{ record: second, vector: axisVector(1) }], updates: [] });
    expect(await attempts()).toBe(3);

    // A check violation will fail again: it is not repeated.
    await failWith('23514', 100);
    const third = makeRecord({ content: 'refused for good' });
    await expect(store.commit({ inserts: [{ record: third, vector: axisVector(2) }], updates: [] })).rejects.toThrow(
      /injected failure/,
    );
    expect(await attempts()).toBe(1);
    expect((await store.list({ tenant: 't1' }, 10)).items.map((r) => r.id).sort()).toEqual(
      [first.id, second.id].sort(),
    );
  });

  it('recomputes keyword terms written by another tokenizer version when it opens', async () => {
    const { store, schema } = await openStore();
    const record = makeRecord({ content: 'Rebuilding keyword terms for the sailing club' });
    await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
    await withAdmin(pglite.url, async (admin) => {
      await admin.query(`UPDATE ${schema}.memories SET keyword_terms = '{}', keyword_keys = '{}'`);
      await admin.query(`UPDATE ${schema}.store_meta SET value = '0' WHERE key = 'keyword_index_version'`);
    });
    const reopened = new PostgresMemoryStore({
      connectionString: pglite.url,
      schema,
      poolSize: 1,
      statementTimeoutMs: 10_000,
    });
    await reopened.open(SPACE);
    try {
      const hits = await reopened.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('sailing club'), 5);
      expect(hits.map((h) => h.id)).toEqual([record.id]);
    } finally {
      await reopened.close();
    }
  });

  it('answers a NUL character, which PostgreSQL cannot store, as invalid input and writes nothing', async () => {
    const { store } = await openStore();
    const record = makeRecord({ content: 'nul \u0000 inside' });
    await expect(store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] })).rejects.toMatchObject({
      status: 422,
    });
    expect(await store.count({ tenant: 't1' })).toBe(0);
  });

  it('migrates once when replicas open the same schema at the same time', async () => {
    const schema = freshSchema();
    const stores = Array.from(
      { length: 4 },
      () => new PostgresMemoryStore({ connectionString: pglite.url, schema, poolSize: 1, statementTimeoutMs: 10_000 }),
    );
    try {
      await Promise.all(stores.map((store) => store.open(SPACE)));
      const [first, second] = stores as [PostgresMemoryStore, PostgresMemoryStore];
      const record = makeRecord({ content: 'seen by every replica' });
      await first.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      expect((await second.get('t1', record.id))?.content).toBe(record.content);
    } finally {
      for (const store of stores) await store.close();
      await withAdmin(pglite.url, (admin) => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    }
  });
});
