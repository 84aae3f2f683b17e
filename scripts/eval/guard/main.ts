/**
 * npm run eval:guard [-- --json out.json] [--url http://127.0.0.1:8001 --api-key KEY]
 *
 * The poisoning corpus (services/memory-api/test/memory/guard-corpus: a tuning part and a held-out
 * part never tuned on) through a real memory-api over HTTP: every item is written with `/store`'s
 * long form (`POST /v1/memories`), its answer recorded (refused, quarantined, stored), every
 * hostile item that was kept is searched with its own words (it must never come back), and
 * every stored benign item is searched for (it must be found). Then the guard's own cost per
 * write, in process. Without --url a fresh memory-api process is started and stopped at the end.
 * Exit codes: 0 done, 1 usage, 2 the run failed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryApiError } from '@hindsight/memory-client';
import type { WriteResult } from '@hindsight/memory-model';
import { guardContent } from '../../../services/memory-api/src/memory/guard.ts';
import {
  CORPUS_PARTS,
  type CorpusItem,
  type CorpusPart,
  type CorpusRates,
  corpusRates,
  formatRates,
  loadCorpus,
  type Outcome,
} from '../../../services/memory-api/test/memory/guard-corpus/corpus.ts';
import { textTable } from '../html.ts';
import { round } from '../scoring.ts';
import { type EvalTarget, evalRunId, evalUserId, openEvalTarget } from '../target.ts';

const USAGE = 'usage: npm run eval:guard -- [--json out.json] [--url <memory-api url>] [--api-key <key>]';

/** Batched ingest runs at ~5,000 writes/s: the time one write may take in all. */
const WRITE_BUDGET_US = 200;

interface ItemResult {
  item: CorpusItem;
  outcome: Outcome;
  /** Hostile and kept (quarantined): whether a search with its own words returned it. */
  leaked?: boolean;
  /** Benign and stored: whether a search with its own words found it. */
  found?: boolean;
}

interface PartReport {
  part: CorpusPart;
  rates: CorpusRates;
  leaked: number;
  benignFound: number;
  benignStored: number;
  byLanguage: Record<string, CorpusRates>;
  /** Tuning part only (the held-out part is measured, never looked into or tuned on). */
  byFamily?: Record<string, CorpusRates>;
  mistakes?: Array<{ label: string; outcome: Outcome; lang: string; family: string; text: string }>;
}

interface GuardCost {
  /** CPU microseconds per guarded write. */
  typicalUs: number;
  corpusUs: number;
  longUs: number;
  budgetShare: number;
}

async function main(argv: readonly string[]): Promise<number> {
  let values: { json?: string; url?: string; 'api-key'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        json: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const target = await openEvalTarget({
    ...(values.url ? { url: values.url } : {}),
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
  });
  try {
    const runId = evalRunId();
    const parts: PartReport[] = [];
    for (const part of CORPUS_PARTS) parts.push(await runPart(target, runId, part));
    const cost = guardCost();
    process.stdout.write(`${formatReport(parts, cost)}\n`);
    if (values.json) {
      const path = resolve(values.json);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `${JSON.stringify({ measured_at: new Date().toISOString(), parts, cost }, null, 2)}\n`);
    }
    return 0;
  } finally {
    await target.close();
  }
}

async function runPart(target: EvalTarget, runId: string, part: CorpusPart): Promise<PartReport> {
  const results: ItemResult[] = [];
  for (const [index, item] of loadCorpus(part).entries()) {
    const userId = evalUserId(runId, 'guard', part, String(index));
    const written = await write(target, item, userId);
    const result: ItemResult = { item, outcome: written.outcome };
    const searched = item.label === 'hostile' ? written.outcome === 'quarantined' : written.outcome === 'stored';
    if (written.result && searched) {
      const { results: hits } = await target.client.search({
        query: item.text.slice(0, 500),
        user_id: userId,
        top_k: 10,
        include_superseded: true,
      });
      const returned = hits.some((hit) => hit.id === written.result?.id);
      if (item.label === 'hostile') result.leaked = returned;
      else result.found = returned;
    }
    results.push(result);
  }
  const group = (key: (item: CorpusItem) => string) => {
    const groups = new Map<string, ItemResult[]>();
    for (const result of results) groups.set(key(result.item), [...(groups.get(key(result.item)) ?? []), result]);
    return Object.fromEntries(
      [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([name, members]) => [name, corpusRates(members)]),
    );
  };
  const benignStored = results.filter((r) => r.item.label === 'benign' && r.outcome === 'stored');
  return {
    part,
    rates: corpusRates(results),
    leaked: results.filter((r) => r.leaked).length,
    benignFound: benignStored.filter((r) => r.found).length,
    benignStored: benignStored.length,
    byLanguage: group((item) => item.lang),
    ...(part === 'tuning'
      ? {
          byFamily: group((item) => `${item.label}/${item.family}`),
          mistakes: results
            .filter((r) => (r.item.label === 'hostile' ? r.outcome === 'stored' : r.outcome !== 'stored'))
            .map(({ item, outcome }) => ({
              label: item.label,
              outcome,
              lang: item.lang,
              family: item.family,
              text: item.text,
            })),
        }
      : {}),
  };
}

async function write(
  target: EvalTarget,
  item: CorpusItem,
  userId: string,
): Promise<{ outcome: Outcome; result?: WriteResult }> {
  try {
    const result = await target.client.store({
      content: item.text,
      user_id: userId,
      memory_type: item.text.length > 500 ? 'episodic' : 'semantic',
    });
    return { outcome: result.status === 'quarantined' ? 'quarantined' : 'stored', result };
  } catch (error) {
    if (error instanceof MemoryApiError && error.code === 'content_rejected') return { outcome: 'rejected' };
    throw error;
  }
}

/** CPU time of the guard per write, in process: typical short memories, the corpus, long notes. */
function guardCost(): GuardCost {
  const typical = [
    'The user prefers concise answers with code examples.',
    'Booked a table at Nopa for Friday at 7pm with Leo and Marta.',
    'User is allergic to peanuts; carries an EpiPen.',
    'Meeting with the design team moved to Thursday 3pm, room 4B.',
    '用户喜欢喝乌龙茶，不喜欢咖啡。',
  ];
  const corpus = CORPUS_PARTS.flatMap((part) => loadCorpus(part).map((item) => item.text));
  const long = corpus.filter((text) => text.length > 400);
  const typicalUs = cpuMicrosPerItem(typical, 2000);
  return {
    typicalUs,
    corpusUs: cpuMicrosPerItem(corpus, 20),
    longUs: cpuMicrosPerItem(long, 200),
    budgetShare: round(typicalUs / WRITE_BUDGET_US),
  };
}

function cpuMicrosPerItem(texts: readonly string[], rounds: number): number {
  const policy = { instructions: 'reject', rawDumps: 'reject' } as const;
  for (const text of texts) guardContent(text, 'episodic', policy);
  const start = process.cpuUsage();
  for (let pass = 0; pass < rounds; pass++) for (const text of texts) guardContent(text, 'episodic', policy);
  const used = process.cpuUsage(start);
  return Math.round(((used.user + used.system) / (rounds * texts.length)) * 10) / 10;
}

function formatReport(parts: readonly PartReport[], cost: GuardCost): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const row = (scope: string, name: string, rates: CorpusRates) => [
    scope,
    name,
    String(rates.hostile),
    rates.hostile ? pct(rates.hostileBlocked) : '—',
    String(rates.benign),
    rates.benign ? pct(rates.benignRefused) : '—',
    rates.benign ? pct(rates.benignQuarantined) : '—',
  ];
  const header = ['part', 'group', 'hostile', 'blocked', 'benign', 'refused', 'quarantined'];
  const lines = ['Poisoning guard over its corpus, through POST /v1/memories and /retrieve', ''];
  for (const part of parts) {
    lines.push(formatRates(part.part, part.rates));
    lines.push(
      `  hostile kept and returned by /retrieve: ${part.leaked}; benign stored and found by /retrieve: ${part.benignFound} of ${part.benignStored}`,
    );
  }
  lines.push(
    '',
    ...textTable(
      header,
      parts.map((p) => row(p.part, 'all', p.rates)),
    ),
    '',
  );
  lines.push(
    ...textTable(
      header,
      parts.flatMap((p) => Object.entries(p.byLanguage).map(([lang, r]) => row(p.part, lang, r))),
    ),
    '',
  );
  lines.push(
    ...textTable(
      header,
      parts.flatMap((p) => Object.entries(p.byFamily ?? {}).map(([family, r]) => row(p.part, family, r))),
    ),
  );
  const mistakes = parts.flatMap((p) => p.mistakes ?? []);
  if (mistakes.length > 0) {
    lines.push('', 'tuning-part mistakes:');
    for (const m of mistakes)
      lines.push(`  ${m.label} ${m.outcome} [${m.lang}/${m.family}] ${m.text.slice(0, 100).replace(/\n/g, ' ')}`);
  }
  lines.push(
    '',
    `guard CPU per write: ${cost.typicalUs} µs for a typical memory (${pct(cost.budgetShare)} of the ${WRITE_BUDGET_US} µs a write has at 5,000 writes/s), ${cost.corpusUs} µs over the corpus, ${cost.longUs} µs for texts over 400 characters`,
  );
  return lines.join('\n');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `eval:guard failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
