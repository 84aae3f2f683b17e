import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MemoryRecord, searchableText } from '@hindsight/memory-model';
import { seededRandom } from '@hindsight/testing';
import { KEYWORD_TOKENIZER_VERSION, keywordTokens } from '@hindsight/text';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contextTermPrefix,
  DEFAULT_KEYWORD_RANKING,
  ownerTermPrefix,
  rankKeywordMatches,
} from '../../../src/adapters/store/keywords.ts';
import { BY_ROWID_CHECKED, filterToSql } from '../../../src/adapters/store/sqlite/filter-sql.ts';
import { SqliteMemoryStore } from '../../../src/adapters/store/sqlite/store.ts';
import { OwnerChangeError, type SearchScope } from '../../../src/memory/store-port.ts';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../../support/app.ts';
import { axisVector, makeRecord } from '../../support/records.ts';

/**
 * Keyword search of the embedded store for an owner of any size: the owner's statistics it keeps
 * (memories, own and context terms) stay what counting their rows says, whatever writes, deletes,
 * forgets, erasures and imports run together; a heavy owner's results are those of a BM25 over all
 * of that owner's memories, though a search reads only part of the common terms' postings.
 */

type Counts = Record<string, { documents: number; own_terms: number; context_terms: number }>;

/** The statistics the store keeps, by `tenant/user`. */
function kept(path: string): Counts {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare('SELECT tenant, user_id, documents, own_terms, context_terms FROM keyword_owners')
      .all() as Array<{ tenant: string; user_id: string; documents: number; own_terms: number; context_terms: number }>;
    return Object.fromEntries(
      rows.map((r) => [
        `${r.tenant}/${r.user_id}`,
        { documents: r.documents, own_terms: r.own_terms, context_terms: r.context_terms },
      ]),
    );
  } finally {
    db.close();
  }
}

/** The same statistics counted from the file's rows: memories per owner, tokens of their entries. */
function counted(path: string): Counts {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const counts: Counts = {};
    for (const { tenant, user_id } of db.prepare('SELECT tenant, user_id FROM memories').all() as Array<{
      tenant: string;
      user_id: string;
    }>) {
      const key = `${tenant}/${user_id}`;
      counts[key] ??= { documents: 0, own_terms: 0, context_terms: 0 };
      counts[key].documents += 1;
    }
    const entries = db
      .prepare(
        'SELECT m.tenant, m.user_id, k.terms FROM memories m JOIN keyword_owners o ON o.tenant = m.tenant AND o.user_id = m.user_id JOIN memory_keyword_terms k ON k.rowid = o.id * 68719476736 + m.rowid',
      )
      .all() as Array<{ tenant: string; user_id: string; terms: string }>;
    for (const { tenant, user_id, terms } of entries) {
      const owner = counts[`${tenant}/${user_id}`];
      if (!owner) throw new Error(`an entry of ${tenant}/${user_id} has no memory`);
      for (const token of terms.split(' ').filter(Boolean)) {
        if (token.startsWith('~')) owner.context_terms += 1;
        else owner.own_terms += 1;
      }
    }
    return counts;
  } finally {
    db.close();
  }
}

/**
 * The FTS5 index's tokens (entries and occurrences of each) against those the entries' terms say it
 * holds: an entry deleted or rewritten with other tokens than it was written with would leave some.
 */
function indexedTokens(path: string): { index: Map<string, string>; entries: Map<string, string> } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const index = new Map(
      (db.prepare('SELECT term, doc, cnt FROM memory_keywords_vocab').all() as TokenRow[]).map((r) => [
        r.term,
        `${r.doc}/${r.cnt}`,
      ]),
    );
    const counts = new Map<string, { doc: number; cnt: number }>();
    const rows = db
      .prepare(
        'SELECT m.tenant, m.user_id, k.terms FROM memories m JOIN keyword_owners o ON o.tenant = m.tenant AND o.user_id = m.user_id JOIN memory_keyword_terms k ON k.rowid = o.id * 68719476736 + m.rowid',
      )
      .all() as Array<{ tenant: string; user_id: string; terms: string }>;
    for (const { tenant, user_id, terms } of rows) {
      const seen = new Set<string>();
      for (const term of terms.split(' ').filter(Boolean)) {
        const token = term.startsWith('~')
          ? contextTermPrefix(tenant, user_id) + term.slice(1)
          : ownerTermPrefix(tenant, user_id) + term;
        const count = counts.get(token) ?? { doc: 0, cnt: 0 };
        count.cnt += 1;
        if (!seen.has(token)) count.doc += 1;
        seen.add(token);
        counts.set(token, count);
      }
    }
    return { index, entries: new Map([...counts].map(([token, c]) => [token, `${c.doc}/${c.cnt}`])) };
  } finally {
    db.close();
  }
}

type TokenRow = { term: string; doc: number; cnt: number };

describe("sqlite keyword statistics stay exact (the owner's memories and terms)", () => {
  let t: TestApp;
  let path: string;
  const acme = auth('key-acme');
  const globex = auth('key-globex');

  beforeAll(async () => {
    t = await startTestApp(TENANT_KEYS);
    path = join(t.dataDir, 'memory.db');
  });
  afterAll(() => t.close());

  const post = (headers: Record<string, string>, url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
  const turn = (user: string, session: string, i: number) => ({
    content: `turn ${i} of ${session}: we talked about sailing boats, harbour ${i % 7} and tide tables ${i}`,
    memory_type: 'episodic',
    user_id: user,
    session_id: session,
    occurred_at: new Date(Date.UTC(2025, 3, 2, 18, i)).toISOString(),
  });
  const fact = (user: string, i: number) => ({
    content: `${user} keeps fact number ${i}: the ${['red', 'green', 'blue'][i % 3]} bicycle is in garage ${i}`,
    memory_type: 'fact',
    user_id: user,
  });

  it('under concurrent single and batched writes, turns, deletes, forgets, erasures and imports', async () => {
    // Records of acme's user "dee", exported, to import into globex while everything else runs.
    const written = await post(acme, '/v1/memories', { items: Array.from({ length: 12 }, (_, i) => fact('dee', i)) });
    expect(written.statusCode).toBe(201);
    const exported = await t.app.inject({ method: 'GET', url: '/v1/export?user_id=dee', headers: acme });
    expect(exported.statusCode).toBe(200);
    const doomed = await post(acme, '/v1/memories', {
      items: Array.from({ length: 10 }, (_, i) => fact('ana', 100 + i)),
    });
    const doomedIds = (doomed.json() as { items: Array<{ id: string }> }).items.map((item) => item.id);
    await post(acme, '/v1/memories', { items: Array.from({ length: 8 }, (_, i) => turn('ben', 'ben-gone', i)) });
    await post(acme, '/v1/memories', { items: Array.from({ length: 9 }, (_, i) => fact('cy', i)) });

    let release!: () => void;
    const barrier = new Promise<void>((resolve) => {
      release = resolve;
    });
    const after = <T>(request: () => Promise<T>) => barrier.then(request);
    const requests = [
      ...Array.from({ length: 20 }, (_, i) => after(() => post(acme, '/store', fact('ana', i)))),
      ...Array.from({ length: 12 }, (_, i) => after(() => post(acme, '/store', turn('ben', 'ben-s1', i)))),
      after(() =>
        post(acme, '/v1/memories', { items: Array.from({ length: 15 }, (_, i) => turn('ben', 'ben-s2', i)) }),
      ),
      after(() => post(acme, '/v1/memories', { items: Array.from({ length: 15 }, (_, i) => fact('ana', 50 + i)) })),
      ...doomedIds.map((id) =>
        after(() => t.app.inject({ method: 'DELETE', url: `/v1/memories/${id}`, headers: acme })),
      ),
      after(() => post(acme, '/v1/forget', { user_id: 'ben', session_id: 'ben-gone' })),
      after(() => t.app.inject({ method: 'DELETE', url: '/v1/users/cy', headers: acme })),
      after(() =>
        t.app.inject({
          method: 'POST',
          url: '/v1/import',
          headers: { ...globex, 'content-type': 'application/x-ndjson' },
          payload: exported.body,
        }),
      ),
    ];
    release();
    const answers = await Promise.all(requests);
    for (const answer of answers) expect(answer.statusCode, answer.body).toBeLessThan(300);

    const statistics = kept(path);
    expect(statistics).toEqual(counted(path));
    const tokens = indexedTokens(path);
    expect(tokens.index).toEqual(tokens.entries);
    expect(statistics['acme/ana']?.documents).toBe(20 + 15);
    expect(statistics['acme/ben']?.documents).toBe(12 + 15);
    // Turns hold their neighbours' words as context terms.
    expect(statistics['acme/ben']?.context_terms).toBeGreaterThan(0);
    expect(statistics['globex/dee']?.documents).toBe(12);
    // An erased user leaves no row behind, not even their statistics.
    expect(Object.keys(statistics).filter((key) => key.endsWith('/cy'))).toEqual([]);

    // Their keyword search reads those statistics: the erased user finds nothing, the others find their own.
    const search = async (headers: Record<string, string>, user: string, query: string) =>
      (
        (await post(headers, '/v1/search', { query, user_id: user })).json() as {
          results: Array<{ content: string }>;
        }
      ).results;
    expect(await search(acme, 'cy', 'bicycle garage')).toEqual([]);
    const found = await search(globex, 'dee', 'bicycle garage');
    expect(found.length).toBeGreaterThan(0);
    for (const result of found) expect(result.content).toMatch(/^dee keeps fact number \d+: /);
  });

  it("cannot move a memory to another user by an edit: 422, and it stays its owner's, found by them alone", async () => {
    const written = await post(acme, '/v1/memories', { items: [fact('gus', 1)] });
    const { id } = (written.json() as { items: Array<{ id: string }> }).items[0] as { id: string };
    const edit = await t.app.inject({
      method: 'PATCH',
      url: `/v1/memories/${id}`,
      headers: acme,
      payload: { user_id: 'hal' },
    });
    expect(edit.statusCode, edit.body).toBe(422);
    expect(edit.body).toContain('Unrecognized key: \\"user_id\\"');
    const stored = await t.app.inject({ method: 'GET', url: `/v1/memories/${id}`, headers: acme });
    expect((stored.json() as { user_id: string; version: number }).user_id).toBe('gus');
    const ids = async (user: string) =>
      (
        (await post(acme, '/v1/search', { query: 'bicycle garage', user_id: user })).json() as {
          results: Array<{ id: string }>;
        }
      ).results.map((r) => r.id);
    expect(await ids('gus')).toEqual([id]);
    expect(await ids('hal')).toEqual([]);
    const tokens = indexedTokens(path);
    expect(tokens.index).toEqual(tokens.entries);
  });
});

describe('sqlite keyword entry of an updated memory', () => {
  let dir: string;
  let path: string;
  let store: SqliteMemoryStore;
  const scope = (userId: string): SearchScope => ({ tenant: 't1', userId, statuses: ['active'] });
  const found = async (userId: string, query: string) =>
    (await store.keywordSearch(scope(userId), keywordTokens(query), 10)).map((c) => c.id);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hindsight-kw-update-'));
    path = join(dir, 'memory.db');
    store = new SqliteMemoryStore(path);
    await store.open({ model: 'test-8', dimension: 8 });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused when the update would move the memory to another owner, and nothing changes', async () => {
    const record = makeRecord({ content: 'eve rides the orange tandem to the lighthouse', user_id: 'eve' });
    await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
    const moved = { ...record, user_id: 'fay', content: 'fay rides the orange tandem to the lighthouse' };

    await expect(store.commit({ inserts: [], updates: [{ record: moved }] })).rejects.toThrow(OwnerChangeError);

    const stored = await store.get('t1', record.id);
    expect(stored?.user_id).toBe('eve');
    expect(stored?.version).toBe(record.version);
    expect(await found('eve', 'orange tandem')).toEqual([record.id]);
    expect(await found('fay', 'orange tandem')).toEqual([]);
    const tokens = indexedTokens(path);
    expect(tokens.index).toEqual(tokens.entries);
  });

  it('is left as it is by an update of its status or confidence, and rewritten when its text changes', async () => {
    const record = makeRecord({ content: 'ivy keeps the violet kayak in the boathouse', user_id: 'ivy' });
    await store.commit({ inserts: [{ record, vector: axisVector(1) }], updates: [] });
    const before = indexPages(path);
    let stored = record;
    for (const change of [{ status: 'archived' }, { status: 'active' }, { confidence: 0.4 }] as const) {
      await store.commit({ inserts: [], updates: [{ record: { ...stored, ...change } }] });
      stored = (await store.get('t1', record.id)) as MemoryRecord;
    }
    expect(stored.confidence).toBe(0.4);
    expect(indexPages(path)).toEqual(before);
    expect(await found('ivy', 'violet kayak')).toEqual([record.id]);

    const edited = { ...stored, content: 'ivy keeps the yellow canoe in the boathouse' };
    await store.commit({ inserts: [], updates: [{ record: edited, vector: axisVector(2) }] });
    expect(indexPages(path)).not.toEqual(before);
    expect(await found('ivy', 'violet kayak')).toEqual([]);
    expect(await found('ivy', 'yellow canoe')).toEqual([record.id]);
    const tokens = indexedTokens(path);
    expect(tokens.index).toEqual(tokens.entries);
  });
});

/** The FTS5 index's stored pages (segments and their structure), as the file holds them. */
function indexPages(path: string): Array<{ id: number; block: Buffer }> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT id, block FROM memory_keywords_data ORDER BY id').all() as Array<{
      id: number;
      block: Buffer;
    }>;
  } finally {
    db.close();
  }
}

/** Memories of 10–16 words from a Zipf-like vocabulary: a few words in most memories, most in few. */
function zipfMemories(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const words = Array.from({ length: 800 }, (_, rank) => `w${rank}x`);
  const weights = words.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const pick = () => {
    let target = random() * total;
    for (let rank = 0; rank < words.length; rank++) {
      target -= weights[rank] as number;
      if (target <= 0) return words[rank] as string;
    }
    return words[words.length - 1] as string;
  };
  return Array.from({ length: count }, () => Array.from({ length: 10 + Math.floor(random() * 7) }, pick).join(' '));
}

describe('sqlite keyword search of a heavy owner', () => {
  const OWNER: SearchScope = { tenant: 't1', userId: 'heavy', statuses: ['active'] };
  const MEMORIES = 4000;
  let dir: string;
  let store: SqliteMemoryStore;
  let records: MemoryRecord[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hindsight-heavy-'));
    store = new SqliteMemoryStore(join(dir, 'memory.db'));
    await store.open({ model: 'test-8', dimension: 8 });
    records = zipfMemories(MEMORIES, 18).map((content) => makeRecord({ content, user_id: 'heavy' }));
    // Another owner with the same words: their memories count for neither the matches nor the statistics.
    const others = zipfMemories(1500, 19).map((content) => makeRecord({ content, user_id: 'light' }));
    const all = [...records, ...others];
    for (let at = 0; at < all.length; at += 500) {
      await store.commit({
        inserts: all.slice(at, at + 500).map((record, i) => ({ record, vector: axisVector(i) })),
        updates: [],
      });
    }
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** BM25 over every memory of the owner, each read whole: what the search must answer. */
  const unbounded = (query: string, k: number) => {
    const terms = keywordTokens(query);
    const documents = records.map((record) => ({ id: record.id, terms: keywordTokens(searchableText(record)) }));
    const frequency = (term: string) => documents.filter((d) => d.terms.includes(term)).length;
    const averageLength = documents.reduce((sum, d) => sum + d.terms.length, 0) / documents.length;
    const wanted = new Set(terms);
    return rankKeywordMatches(
      terms,
      documents.filter((d) => d.terms.some((term) => wanted.has(term))),
      { documents: documents.length, documentFrequency: frequency, averageLength },
      k,
      DEFAULT_KEYWORD_RANKING,
    );
  };
  const rounded = (hits: Array<{ score: number }>) => hits.map((h) => Number(h.score.toFixed(9)));

  it.each([
    ['a rare word beside the most common ones', 'w0x w1x w2x w700x'],
    ['words of middling frequency beside common ones', 'w0x w30x w45x w3x'],
    ['one middling word and one common word', 'w12x w1x'],
  ])('ranks as a BM25 over all its memories: %s', async (_name, query) => {
    const frequencies = keywordTokens(query).map(
      (term) => records.filter((r) => r.content.split(' ').includes(term)).length,
    );
    // The most common word is in most of the owner's memories: too many postings to read them all.
    expect(Math.max(...frequencies)).toBeGreaterThan(MEMORIES * 0.5);
    const hits = await store.keywordSearch(OWNER, keywordTokens(query), 40);
    const expected = unbounded(query, 40);
    expect(hits.length).toBe(expected.length);
    expect(rounded(hits)).toEqual(rounded(expected));
    // The same memories where scores differ from their neighbours' (ties may come in any order).
    const scores = rounded(expected);
    const distinct = (i: number) => scores[i] !== scores[i - 1] && scores[i] !== scores[i + 1];
    expect(hits.map((h, i) => (distinct(i) ? h.id : 'tie'))).toEqual(
      expected.map((h, i) => (distinct(i) ? h.id : 'tie')),
    );
  });

  it('scores every memory it returns as that BM25 does, when only common words are asked', async () => {
    const query = 'w0x w1x w2x';
    const hits = await store.keywordSearch(OWNER, keywordTokens(query), 40);
    expect(hits).toHaveLength(40);
    const exact = new Map(unbounded(query, MEMORIES).map((h) => [h.id, Number(h.score.toFixed(9))]));
    for (const hit of hits) expect(Number(hit.score.toFixed(9))).toBe(exact.get(hit.id));
  });

  it('reads few postings whole, ranks them, and leaves out the best matches its filters refuse', async () => {
    const query = 'w700x w701x';
    const terms = keywordTokens(query);
    const wanted = new Set(terms);
    const matching = records
      .map((record) => ({ id: record.id, terms: keywordTokens(searchableText(record)) }))
      .filter((d) => d.terms.some((term) => wanted.has(term)));
    // Few enough postings to be read whole (keyword-search.ts WHOLE_READ_POSTINGS), more than k.
    expect(matching.length).toBeGreaterThan(12);
    expect(matching.length).toBeLessThan(512);
    const ranked = rankKeywordMatches(
      terms,
      matching,
      {
        documents: MEMORIES,
        documentFrequency: (term) => matching.filter((d) => d.terms.includes(term)).length,
        averageLength: matching.reduce((sum, d) => sum + d.terms.length, 0) / matching.length,
      },
      matching.length,
      DEFAULT_KEYWORD_RANKING,
    );
    const refused = records.filter((r) => ranked.slice(0, 3).some((h) => h.id === r.id));
    await store.commit({
      inserts: [],
      updates: refused.map((record) => ({ record: { ...record, status: 'archived' as const } })),
    });
    try {
      const hits = await store.keywordSearch(OWNER, terms, 8);
      const gone = new Set(refused.map((r) => r.id));
      const expected = ranked.filter((h) => !gone.has(h.id)).slice(0, 8);
      expect(rounded(hits)).toEqual(rounded(expected));
      expect(hits.filter((h) => gone.has(h.id))).toEqual([]);
    } finally {
      await store.commit({
        inserts: [],
        updates: refused.map((record) => ({ record: { ...record, status: 'active' as const, version: 2 } })),
      });
    }
  });

  it("checks matches against the filters in the narrow filter index, never the memories' rows", () => {
    const db = new Database(join(dir, 'memory.db'), { readonly: true });
    try {
      const filtered: SearchScope[] = [
        OWNER,
        { ...OWNER, validAt: Date.now(), layers: ['semantic'], categories: ['fact'] },
        { ...OWNER, agentId: 'agent-1', occurredFrom: 0, occurredTo: Date.now(), tags: ['work'] },
      ];
      for (const scope of filtered) {
        const { where, params } = filterToSql(scope);
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN SELECT m.rowid, m.id FROM ${BY_ROWID_CHECKED} WHERE ${where}`)
          .all('[]', ...params) as Array<{ detail: string }>;
        const memoriesStep = plan.map((step) => step.detail).filter((detail) => /\bm\b/.test(detail));
        expect(memoriesStep).toEqual([expect.stringMatching(/USING COVERING INDEX memories_filter/)]);
      }
    } finally {
      db.close();
    }
  });

  it("keeps to the owner's filters while reading part of the postings", async () => {
    const archived = records.filter((r) => r.content.split(' ').includes('w12x')).slice(0, 5);
    await store.commit({
      inserts: [],
      updates: archived.map((record) => ({ record: { ...record, status: 'archived' as const } })),
    });
    const hits = await store.keywordSearch(OWNER, keywordTokens('w12x w1x'), 40);
    const gone = new Set(archived.map((r) => r.id));
    expect(hits.filter((h) => gone.has(h.id))).toEqual([]);
    expect(hits.length).toBe(40);
    await store.commit({
      inserts: [],
      updates: archived.map((record) => ({ record: { ...record, status: 'active' as const, version: 2 } })),
    });
  });
});

/**
 * Rewrites a store's keyword tables as schema 8 and every release before it laid them out: an FTS5
 * table holding each memory's owner-scoped tokens (`s<owner>term` own, `c<owner>term` context) as
 * its content, and no table of entry terms.
 */
function asSchema8Keywords(path: string, schemaVersion = 8): void {
  const db = new Database(path);
  try {
    const entries = db
      .prepare(
        'SELECT m.rowid, m.tenant, m.user_id, k.terms FROM memories m JOIN keyword_owners o ON o.tenant = m.tenant AND o.user_id = m.user_id JOIN memory_keyword_terms k ON k.rowid = o.id * 68719476736 + m.rowid',
      )
      .all() as Array<{ rowid: number; tenant: string; user_id: string; terms: string }>;
    db.exec(`
      DROP TABLE memory_keywords_vocab;
      DROP TABLE memory_keywords;
      DROP TABLE memory_keyword_terms;
      CREATE VIRTUAL TABLE memory_keywords USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0');
      CREATE VIRTUAL TABLE memory_keywords_vocab USING fts5vocab(memory_keywords, 'row');
      INSERT INTO memory_keywords (memory_keywords, rank) VALUES ('secure-delete', 1);
    `);
    const insert = db.prepare('INSERT INTO memory_keywords (rowid, terms) VALUES (?, ?)');
    for (const { rowid, tenant, user_id, terms } of entries) {
      const own = ownerTermPrefix(tenant, user_id);
      const context = contextTermPrefix(tenant, user_id);
      const scoped = terms
        .split(' ')
        .filter(Boolean)
        .map((term) => (term.startsWith('~') ? context + term.slice(1) : own + term));
      insert.run(rowid, scoped.join(' '));
    }
    db.prepare("UPDATE store_meta SET value = ? WHERE key = 'schema_version'").run(String(schemaVersion));
    db.prepare("UPDATE store_meta SET value = ? WHERE key = 'keyword_index_version'").run(
      `${KEYWORD_TOKENIZER_VERSION}/scoped-terms/2-1`,
    );
  } finally {
    db.close();
  }
}

describe('sqlite keyword entries of a store from before their terms table (schema 8)', () => {
  it('are rebuilt on open: same results, no copy of the scoped tokens, deletes and erasures kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const turns = Array.from({ length: 6 }, (_, i) =>
        makeRecord({
          content: `turn ${i} about the ${['harbour', 'lighthouse', 'ferry'][i % 3]} keeper`,
          layer: 'episodic',
          category: 'event',
          session_id: 's1',
          occurred_at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        }),
      );
      const facts = [
        makeRecord({ content: 'The lighthouse is painted white', user_id: 'u2' }),
        makeRecord({ content: 'The ferry to the lighthouse leaves at noon', user_id: 'u2' }),
        makeRecord({ content: 'Another lighthouse stands on the cape', user_id: 'u3' }),
      ];
      await store.commit({
        inserts: [...turns, ...facts].map((record, i) => ({ record, vector: axisVector(i) })),
        updates: [],
      });
      const queries = ['lighthouse keeper', 'ferry', 'harbour turn', 'lighthouse white noon'];
      const searches = async (s: SqliteMemoryStore) => {
        const answers: unknown[] = [];
        for (const user of ['u1', 'u2', 'u3'])
          for (const query of queries)
            answers.push(await s.keywordSearch({ tenant: 't1', userId: user }, keywordTokens(query), 10));
        return answers;
      };
      const before = await searches(store);
      await store.close();
      asSchema8Keywords(path);
      const old = new Database(path, { readonly: true });
      expect(old.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_keywords_content'").get()).toBeDefined();
      old.close();

      const upgraded = new SqliteMemoryStore(path);
      await upgraded.open({ model: 'test-8', dimension: 8 });
      expect(await searches(upgraded)).toEqual(before);
      expect(kept(path)).toEqual(counted(path));
      const db = new Database(path, { readonly: true });
      // The index keeps no copy of the scoped tokens; the entries' terms hold no owner prefix.
      expect(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_keywords_content'").get()).toBeUndefined();
      const digest = ownerTermPrefix('t1', 'u1').slice(1);
      expect(readFileSync(path).includes(Buffer.from(`${digest}lighthouse`))).toBe(false);
      expect(
        db.prepare("SELECT count(*) FROM memory_keyword_terms WHERE terms LIKE '%' || ? || '%'").pluck().get(digest),
      ).toBe(0);
      db.close();

      // A deleted memory and an erased user's memories never match again.
      const lighthouse = async () =>
        (await upgraded.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('lighthouse'), 10)).map(
          (h) => h.id,
        );
      expect(await lighthouse()).toContain(turns[1]?.id);
      await upgraded.deleteMany('t1', [turns[1]?.id as string]);
      expect(await lighthouse()).not.toContain(turns[1]?.id);
      expect(await lighthouse()).toContain(turns[4]?.id);
      await upgraded.deleteMany(
        't1',
        facts.slice(0, 2).map((f) => f.id),
      );
      expect(
        await upgraded.keywordSearch({ tenant: 't1', userId: 'u2' }, keywordTokens('lighthouse ferry'), 10),
      ).toEqual([]);
      const u3 = await upgraded.keywordSearch({ tenant: 't1', userId: 'u3' }, keywordTokens('lighthouse'), 10);
      expect(u3.map((h) => h.id)).toEqual([facts[2]?.id]);
      expect(kept(path)).toEqual(counted(path));
      await upgraded.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Rewrites a store's keyword index as schema 9 (2 December 2026) laid it out: a contentless_delete
 * FTS5 table of the owner-scoped tokens, whose deletes only mark an entry deleted.
 */
function asSchema9Keywords(path: string): void {
  const db = new Database(path);
  try {
    const entries = db
      .prepare(
        'SELECT m.rowid, m.tenant, m.user_id, k.terms FROM memories m JOIN keyword_owners o ON o.tenant = m.tenant AND o.user_id = m.user_id JOIN memory_keyword_terms k ON k.rowid = o.id * 68719476736 + m.rowid',
      )
      .all() as Array<{ rowid: number; tenant: string; user_id: string; terms: string }>;
    db.exec(`
      DROP TABLE memory_keywords_vocab;
      DROP TABLE memory_keywords;
      CREATE VIRTUAL TABLE memory_keywords USING fts5(
        terms, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
      );
      CREATE VIRTUAL TABLE memory_keywords_vocab USING fts5vocab(memory_keywords, 'row');
      INSERT INTO memory_keywords (memory_keywords, rank) VALUES ('secure-delete', 1);
    `);
    const insert = db.prepare('INSERT INTO memory_keywords (rowid, terms) VALUES (?, ?)');
    for (const { rowid, tenant, user_id, terms } of entries) {
      const own = ownerTermPrefix(tenant, user_id);
      const context = contextTermPrefix(tenant, user_id);
      const scoped = terms
        .split(' ')
        .filter(Boolean)
        .map((term) => (term.startsWith('~') ? context + term.slice(1) : own + term));
      insert.run(rowid, scoped.join(' '));
    }
    db.prepare("UPDATE store_meta SET value = '9' WHERE key = 'schema_version'").run();
  } finally {
    db.close();
  }
}

describe('sqlite keyword index of a store whose deletes kept the tokens (schema 9)', () => {
  it("is rebuilt on open with the same results, and from then on an erased user's words leave the files", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    const onDisk = (word: string) =>
      ['', '-wal'].reduce((n, suffix) => {
        try {
          return n + (readFileSync(`${path}${suffix}`).includes(word) ? 1 : 0);
        } catch {
          return n;
        }
      }, 0);
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const erin = ['quince5521', 'kumquat5521'].map((word) =>
        makeRecord({ content: `The user grows ${word} by the lighthouse`, user_id: 'erin' }),
      );
      const frank = makeRecord({ content: 'The user paints the lighthouse white', user_id: 'frank' });
      await store.commit({
        inserts: [...erin, frank].map((record, i) => ({ record, vector: axisVector(i) })),
        updates: [],
      });
      const searches = async (s: SqliteMemoryStore) =>
        Promise.all(
          ['erin', 'frank'].map((user) =>
            s.keywordSearch({ tenant: 't1', userId: user }, keywordTokens('lighthouse quince'), 10),
          ),
        );
      const before = await searches(store);
      await store.close();
      asSchema9Keywords(path);
      // A memory schema 9 deleted: its entry marked deleted, its tokens kept in the index's pages.
      const old = new Database(path);
      const gone = 1_000_000;
      old
        .prepare('INSERT INTO memory_keywords (rowid, terms) VALUES (?, ?)')
        .run(gone, `${ownerTermPrefix('t1', 'erin')}gooseberry5521`);
      old.prepare('DELETE FROM memory_keywords WHERE rowid = ?').run(gone);
      old.close();
      expect(onDisk('gooseberry5521')).toBeGreaterThan(0);

      const upgraded = new SqliteMemoryStore(path);
      await upgraded.open({ model: 'test-8', dimension: 8 });
      const db = new Database(path, { readonly: true });
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_keywords'").pluck().get()).not.toMatch(
        /contentless_delete/,
      );
      db.close();
      expect(onDisk('gooseberry5521')).toBe(0);
      expect(await searches(upgraded)).toEqual(before);
      expect(kept(path)).toEqual(counted(path));

      await upgraded.deleteMany(
        't1',
        erin.map((r) => r.id),
      );
      expect(await upgraded.purgeDeleted()).toMatchObject({ purged: true });
      expect([onDisk('quince5521'), onDisk('kumquat5521')]).toEqual([0, 0]);
      const white = await upgraded.keywordSearch({ tenant: 't1', userId: 'frank' }, keywordTokens('lighthouse'), 10);
      expect(white.map((h) => h.id)).toEqual([frank.id]);
      await upgraded.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite keyword statistics of a store from before them (schema 6)', () => {
  it('are counted from its entries on open, and kept from then on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const turns = Array.from({ length: 5 }, (_, i) =>
        makeRecord({
          content: `turn ${i} about the lighthouse keeper`,
          layer: 'episodic',
          category: 'event',
          session_id: 's1',
          occurred_at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        }),
      );
      const facts = [makeRecord({ content: 'The lighthouse is painted white', user_id: 'u2' })];
      await store.commit({
        inserts: [...turns, ...facts].map((record, i) => ({ record, vector: axisVector(i) })),
        updates: [],
      });
      await store.close();

      // The file as schema 6 left it: scoped tokens in the index, no statistics.
      asSchema8Keywords(path, 6);
      const db = new Database(path);
      db.exec("DROP TABLE keyword_owners; DELETE FROM sqlite_sequence WHERE name = 'keyword_owners'");
      db.close();

      const upgraded = new SqliteMemoryStore(path);
      await upgraded.open({ model: 'test-8', dimension: 8 });
      expect(kept(path)).toEqual(counted(path));
      expect(kept(path)['t1/u1']).toMatchObject({ documents: 5 });
      const hits = await upgraded.keywordSearch({ tenant: 't1', userId: 'u2' }, keywordTokens('lighthouse'), 5);
      expect(hits.map((h) => h.id)).toEqual([facts[0]?.id]);
      await upgraded.deleteMany('t1', [turns[2]?.id as string]);
      expect(kept(path)).toEqual(counted(path));
      expect(kept(path)['t1/u1']).toMatchObject({ documents: 4 });
      await upgraded.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite keyword entries of a store that keyed them by memory rowid (schema 10)', () => {
  it("are keyed by owner on open, one owner's entries together, with the same results, kept so by writes", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    const owners = ['ada', 'bo', 'cy'];
    // The owner of each entry in key order, and whether every entry's key is its owner's.
    const layout = () => {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        const rows = db
          .prepare(
            `SELECT m.user_id AS owner, k.rowid = o.id * 68719476736 + m.rowid AS keyed
             FROM memory_keyword_terms k JOIN memories m ON m.rowid = k.rowid % 68719476736
             JOIN keyword_owners o ON o.tenant = m.tenant AND o.user_id = m.user_id ORDER BY k.rowid`,
          )
          .all() as Array<{ owner: string; keyed: number }>;
        const runs = rows.map((r) => r.owner).filter((owner, i, all) => owner !== all[i - 1]);
        return { runs, keyed: rows.every((r) => r.keyed === 1), entries: rows.length };
      } finally {
        db.close();
      }
    };
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const words = ['harbour', 'lantern', 'orchard', 'violin', 'glacier'];
      const records = Array.from({ length: 30 }, (_, i) =>
        makeRecord({
          content: `The user mentioned the ${words[i % 5]} and the ${words[(i * 3) % 5]} on day ${i}`,
          user_id: owners[i % 3],
        }),
      );
      await store.commit({ inserts: records.map((record, i) => ({ record, vector: axisVector(i) })), updates: [] });
      const searches = async (s: SqliteMemoryStore) => {
        const answers: unknown[] = [];
        for (const user of owners)
          for (const query of ['harbour', 'lantern violin', 'orchard glacier harbour'])
            answers.push(await s.keywordSearch({ tenant: 't1', userId: user }, keywordTokens(query), 10));
        return answers;
      };
      const before = await searches(store);
      await store.close();

      // The file as schema 10 left it: entries keyed by their memory's rowid, owners interleaved.
      const old = new Database(path);
      old.exec(`
        UPDATE memory_keyword_terms SET rowid = rowid % 68719476736;
        UPDATE store_meta SET value = '10' WHERE key = 'schema_version';
      `);
      old.close();
      expect(layout().runs.length).toBe(30);

      const upgraded = new SqliteMemoryStore(path);
      await upgraded.open({ model: 'test-8', dimension: 8 });
      expect(layout()).toEqual({ runs: owners, keyed: true, entries: 30 });
      expect(await searches(upgraded)).toEqual(before);
      expect(kept(path)).toEqual(counted(path));

      // New memories join their owner's entries; a deleted one leaves them.
      const added = makeRecord({ content: 'The user tuned the violin by the harbour', user_id: 'ada' });
      await upgraded.commit({ inserts: [{ record: added, vector: axisVector(31) }], updates: [] });
      const gone = records.find((r) => r.user_id === 'bo' && r.content.includes('lantern')) as MemoryRecord;
      await upgraded.deleteMany('t1', [gone.id]);
      expect(layout()).toEqual({ runs: owners, keyed: true, entries: 30 });
      expect(kept(path)).toEqual(counted(path));
      const violin = await upgraded.keywordSearch({ tenant: 't1', userId: 'ada' }, keywordTokens('violin harbour'), 1);
      expect(violin.map((h) => h.id)).toEqual([added.id]);
      const lantern = await upgraded.keywordSearch({ tenant: 't1', userId: 'bo' }, keywordTokens('lantern'), 30);
      expect(lantern.map((h) => h.id)).not.toContain(gone.id);
      expect(lantern.length).toBeGreaterThan(0);
      await upgraded.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite keyword search from the entries a read connection holds', () => {
  it('answers as a connection holding none, through inserts, edits, turns, deletes and an erasure', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    const space = { model: 'test-8', dimension: 8 };
    const writer = new SqliteMemoryStore(path);
    await writer.open(space);
    const reader = new SqliteMemoryStore(path);
    let vectors = 0;
    const insert = async (records: MemoryRecord[]) =>
      writer.commit({ inserts: records.map((record) => ({ record, vector: axisVector(vectors++) })), updates: [] });
    try {
      const memories = zipfMemories(600, 17).map((content, i) =>
        makeRecord({ content, user_id: i % 5 === 0 ? 'nia' : 'oto' }),
      );
      await insert(memories);
      await reader.openReader(space);
      const queries = zipfMemories(25, 23).map((text) => keywordTokens(text).slice(0, 4));
      const sameAsFresh = async () => {
        const fresh = new SqliteMemoryStore(path);
        await fresh.openReader(space);
        try {
          for (const userId of ['nia', 'oto'])
            for (const terms of queries) {
              const scope: SearchScope = { tenant: 't1', userId, statuses: ['active'] };
              const held = await reader.keywordSearch(scope, terms, 10);
              expect(held).toEqual(await fresh.keywordSearch(scope, terms, 10));
            }
        } finally {
          await fresh.close();
        }
      };
      await sameAsFresh();

      const added = zipfMemories(20, 29).map((content, i) => makeRecord({ content, user_id: i % 2 ? 'nia' : 'oto' }));
      await insert(added);
      await sameAsFresh();
      const edited = { ...(memories[0] as MemoryRecord), content: 'w0x w1x w2x w3x and nothing else' };
      await writer.commit({ inserts: [], updates: [{ record: edited, vector: axisVector(vectors++) }] });
      await sameAsFresh();
      // A session's turns: each new one rewrites its neighbours' context terms.
      const turn = (i: number) =>
        makeRecord({
          content: `w${i}x w${i + 1}x w${i + 2}x turn ${i}`,
          user_id: 'nia',
          layer: 'episodic',
          category: 'event',
          session_id: 's1',
          occurred_at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        });
      const turns = [turn(0), turn(1), turn(2)];
      await insert(turns.slice(0, 2));
      await sameAsFresh();
      await insert(turns.slice(2));
      await sameAsFresh();
      await writer.deleteMany('t1', [(memories[5] as MemoryRecord).id, (added[1] as MemoryRecord).id]);
      await sameAsFresh();
      // A term the index's tokenizer splits ("3.5"): the owner is searched through the index.
      const split = makeRecord({ content: 'w0x w1x cost 3.5 at w2x', user_id: 'nia' });
      await insert([split]);
      await sameAsFresh();

      const nia = [...memories, ...added, ...turns, split].filter((r) => r.user_id === 'nia').map((r) => r.id);
      await writer.deleteMany('t1', nia);
      for (const terms of queries)
        expect(await reader.keywordSearch({ tenant: 't1', userId: 'nia' }, terms, 10)).toEqual([]);
      await insert(zipfMemories(30, 31).map((content) => makeRecord({ content, user_id: 'nia' })));
      await sameAsFresh();
    } finally {
      await reader.close();
      await writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
