/**
 * tsx scripts/bench/keyword-focus.ts --db <file> [--out results.json] [--requests 500] [--exact 100]
 *
 * Keyword search of the embedded store alone, on the bench's workload: 100,000 memories over 100
 * users (about 1,000 each) and one owner holding 100,000, written once into `--db` (reused when it
 * exists) through the store's own commit. Reports keywordSearch p50/p95/mean for a random user and
 * for the heavy owner (k = 40, as a top-10 /retrieve asks), and writes each query's ranked ids.
 * `--exact N`: for the first N heavy-owner queries, the recall@10 and @40 of an unbounded BM25
 * (every match of every query term read and scored with the owner's statistics).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { keywordTokens } from '@hindsight/text';
import Database from 'better-sqlite3';
import {
  CONTEXT_MARK,
  contextTermPrefix,
  DEFAULT_KEYWORD_RANKING,
  keywordScorer,
  ownerTermPrefix,
} from '../../services/memory-api/src/adapters/store/keywords.ts';
import { SqliteMemoryStore } from '../../services/memory-api/src/adapters/store/sqlite/store.ts';
import { newMemoryRecord } from '../../services/memory-api/src/memory/new-record.ts';
import type { NewMemory, SearchScope } from '../../services/memory-api/src/memory/store-port.ts';
import { summariseLatency } from './http-client.ts';
import { Workload } from './workload.ts';

const SPACE = { model: 'keyword-focus-8', dimension: 8 };
const TENANT = 'default';
const HEAVY = 'bench-heavy-owner';
const K = 40;

const { values } = parseArgs({
  options: { db: { type: 'string' }, out: { type: 'string' }, requests: { type: 'string' }, exact: { type: 'string' } },
});
if (!values.db) throw new Error('--db is required');
const requests = Number(values.requests ?? 500);
const fresh = !existsSync(values.db);
const store = new SqliteMemoryStore(values.db);
const t0 = performance.now();
await store.open(SPACE);
process.stderr.write(`opened in ${(performance.now() - t0).toFixed(0)} ms\n`);
const workload = new Workload(100);
if (fresh) {
  let serial = 0;
  const vector = () => Float32Array.from({ length: SPACE.dimension }, () => Math.random() - 0.5);
  const batch = (userId: () => string): NewMemory[] =>
    Array.from({ length: 1000 }, () => ({
      record: newMemoryRecord(
        {
          tenant: TENANT,
          user_id: userId(),
          layer: 'episodic',
          category: 'event',
          content: workload.memory(serial++),
          confidence: 0.9,
          source: { kind: 'api' },
          embedding_model: SPACE.model,
        },
        new Date().toISOString(),
      ),
      vector: vector(),
    }));
  for (let i = 0; i < 100; i++) await store.commit({ inserts: batch(() => workload.randomUser()), updates: [] });
  for (let i = 0; i < 100; i++) await store.commit({ inserts: batch(() => HEAVY), updates: [] });
  process.stderr.write(`filled in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

// The memories' vocabulary (a workload's words come from its seed), drawn afresh.
const queries = new Workload(100, 7);
const scope = (userId: string): SearchScope => ({ tenant: TENANT, userId, statuses: ['active'], validAt: Date.now() });
const results: Record<string, Array<{ query: string; ids: string[] }>> = { many: [], heavy: [] };
const figures: Record<string, ReturnType<typeof summariseLatency>> = {};
for (const kind of ['many', 'heavy'] as const) {
  const samples: number[] = [];
  // CPU time of the search too: the machine is shared, wall time carries other processes' load.
  const cpu: number[] = [];
  const warmup = 30;
  for (let i = 0; i < requests + warmup; i++) {
    const query = queries.query();
    const userId = kind === 'heavy' ? HEAVY : queries.randomUser();
    const s = performance.now();
    const c = process.cpuUsage();
    const hits = await store.keywordSearch(scope(userId), keywordTokens(query), K);
    const used = process.cpuUsage(c);
    const took = performance.now() - s;
    if (i < warmup) continue;
    samples.push(took);
    cpu.push((used.user + used.system) / 1000);
    results[kind]?.push({ query, ids: hits.map((h) => h.id) });
  }
  const wall = summariseLatency(samples, 1, samples.reduce((a, b) => a + b, 0) / 1000);
  const onCpu = summariseLatency(cpu, 1, 1);
  figures[kind] = wall;
  figures[`${kind}-cpu`] = onCpu;
  process.stdout.write(
    `${kind}: keywordSearch wall p50 ${wall.p50.toFixed(3)} / p95 ${wall.p95.toFixed(3)} / mean ${wall.mean.toFixed(3)} ms; CPU p50 ${onCpu.p50.toFixed(3)} / p95 ${onCpu.p95.toFixed(3)} / mean ${onCpu.mean.toFixed(3)} ms (${samples.length} queries)\n`,
  );
}
await store.close();
if (values.exact) {
  const db = new Database(values.db, { readonly: true });
  const owner = db
    .prepare('SELECT documents, own_terms, context_terms FROM keyword_owners WHERE tenant = ? AND user_id = ?')
    .get(TENANT, HEAVY) as { documents: number; own_terms: number; context_terms: number };
  const { contextWeight } = DEFAULT_KEYWORD_RANKING;
  const own = ownerTermPrefix(TENANT, HEAVY);
  const context = contextTermPrefix(TENANT, HEAVY);
  const recall = { at10: 0, at40: 0, sameTop10: 0, n: 0 };
  for (const { query, ids } of (results.heavy ?? []).slice(0, Number(values.exact))) {
    const terms = [...new Set(keywordTokens(query))];
    const df = new Map<string, number>();
    for (const term of terms) {
      const row = db.prepare('SELECT doc FROM memory_keywords_vocab WHERE term = ?').get(own + term) as
        | { doc: number }
        | undefined;
      df.set(term, row?.doc ?? 0);
    }
    const scorer = keywordScorer(
      terms,
      {
        documents: owner.documents,
        documentFrequency: (term) => df.get(term) ?? 0,
        averageLength: (owner.own_terms + contextWeight * owner.context_terms) / owner.documents,
      },
      DEFAULT_KEYWORD_RANKING,
    );
    if (!scorer) continue;
    const match = terms.flatMap((t) => [`"${own}${t}"`, `"${context}${t}"`]).join(' OR ');
    const rows = db
      .prepare(
        `SELECT m.id, t.terms FROM memory_keywords k JOIN memories m ON m.rowid = k.rowid
         JOIN memory_keyword_terms t ON t.rowid = k.rowid WHERE memory_keywords MATCH ?`,
      )
      .all(match) as Array<{ id: string; terms: string }>;
    const scored = rows.map(({ id, terms: indexed }) => {
      const frequencies = new Map<string, number>();
      let length = 0;
      for (const token of indexed.split(' ')) {
        const weight = token.startsWith(CONTEXT_MARK) ? contextWeight : 1;
        length += weight;
        const term = weight === 1 ? token : token.slice(CONTEXT_MARK.length);
        if (df.has(term)) frequencies.set(term, (frequencies.get(term) ?? 0) + weight);
      }
      return { id, score: scorer.score({ frequencies, length }) };
    });
    const exact = scored.sort((a, b) => b.score - a.score).map((h) => h.id);
    const overlap = (n: number) => exact.slice(0, n).filter((id) => ids.slice(0, n).includes(id)).length / n;
    recall.at10 += overlap(10);
    recall.at40 += overlap(40);
    if (exact.slice(0, 10).join() === ids.slice(0, 10).join()) recall.sameTop10 += 1;
    recall.n += 1;
  }
  db.close();
  process.stdout.write(
    `heavy owner against an unbounded BM25 (${recall.n} queries): recall@10 ${(recall.at10 / recall.n).toFixed(3)}, recall@40 ${(recall.at40 / recall.n).toFixed(3)}, same top 10 in order ${recall.sameTop10}\n`,
  );
}
if (values.out) await writeFile(values.out, JSON.stringify({ figures, results }));
