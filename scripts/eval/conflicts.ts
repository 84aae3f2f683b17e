/**
 * The conflict eval: does the write path supersede and merge only what is about the same thing?
 * Each case is a short sequence of writes for a fresh user, sent one at a time through `/store`
 * as an agent would; every write carries what should happen to it:
 *   - nothing marked: a new memory (a merge or supersede here is a false positive),
 *   - `supersedes: [i]`: it supersedes the earlier write(s) i of the case (a contradiction),
 *   - `refines: i`: it refines write i (merging is fine, superseding is wrong),
 *   - `merges: i`: it restates write i and should be merged into it,
 *   - `content_free: true`: it has no content words and must never merge or supersede (a 422 is fine).
 * Scored as precision and recall of supersede and merge decisions, plus the counts a user notices:
 * unrelated facts superseded or merged, contradictions resolved, refinements superseded.
 *
 * A dataset is a JSON file (or a directory of them, one split each):
 *   {kind: "conflicts", split, description?, cases: [{id, group, language, memory_type, writes: [...]}]}
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createProgress } from '@hindsight/cli/progress';
import { MemoryApiError } from '@hindsight/memory-client';
import { type MemoryInput, MemoryType, type WriteResult } from '@hindsight/memory-model';
import { z } from 'zod';
import { round } from './scoring.ts';
import { evalRunId, evalUserId, openEvalTarget } from './target.ts';

export const CONFLICTS_KIND = 'conflicts';

const Slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, 'ids are lower-case slugs');
export const CONFLICT_GROUPS = ['unrelated', 'contradiction', 'refinement', 'restatement', 'content-free'] as const;
type ConflictGroup = (typeof CONFLICT_GROUPS)[number];

const Write = z
  .object({
    content: z.string().min(1).max(500),
    memory_type: MemoryType.optional(),
    query: z.string().min(1).optional(),
    /** The attribute key an extractor would send (`metadata.key`). */
    key: z.string().min(1).optional(),
    supersedes: z.array(z.number().int().min(0)).min(1).optional(),
    refines: z.number().int().min(0).optional(),
    merges: z.number().int().min(0).optional(),
    content_free: z.boolean().optional(),
  })
  .strict();

const Case = z
  .object({
    id: Slug,
    group: z.enum(CONFLICT_GROUPS),
    language: z.string().min(2),
    memory_type: MemoryType,
    writes: z.array(Write).min(1),
  })
  .strict()
  .superRefine((c, ctx) => {
    c.writes.forEach((write, i) => {
      const earlier = [...(write.supersedes ?? []), ...[write.refines, write.merges].filter((x) => x !== undefined)];
      if (earlier.some((j) => j >= i)) {
        ctx.addIssue({ code: 'custom', message: `case ${c.id}: write ${i} points at a write that is not earlier` });
      }
    });
  });

export const ConflictsFile = z
  .object({
    kind: z.literal(CONFLICTS_KIND),
    split: Slug,
    description: z.string().optional(),
    cases: z.array(Case).min(1),
  })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    for (const c of file.cases) {
      if (seen.has(c.id)) ctx.addIssue({ code: 'custom', message: `case id "${c.id}" appears twice` });
      seen.add(c.id);
    }
  });
export type ConflictsFile = z.infer<typeof ConflictsFile>;
type ConflictCase = z.infer<typeof Case>;

/** True for the parsed JSON of a conflicts file. */
export function isConflictCorpus(sample: unknown): boolean {
  return typeof sample === 'object' && sample !== null && (sample as { kind?: unknown }).kind === CONFLICTS_KIND;
}

/** Reads one file or every `.json` file of a directory (one split each), validated. */
export async function loadConflicts(path: string): Promise<ConflictsFile[]> {
  const files = (await stat(path)).isDirectory()
    ? (await readdir(path))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(path, f))
    : [path];
  if (files.length === 0) throw new Error(`no .json files in ${path}`);
  const splits: ConflictsFile[] = [];
  for (const file of files) {
    const parsed = ConflictsFile.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw new Error(`${file}: not a valid conflicts file:\n  ${problems.join('\n  ')}`);
    }
    if (splits.some((s) => s.split === parsed.data.split))
      throw new Error(`${file}: split "${parsed.data.split}" twice`);
    splits.push(parsed.data);
  }
  return splits;
}

/** What happened to one write, and whether that was right. */
export interface WriteOutcome {
  index: number;
  content: string;
  /** The answer's status, or `rejected` for a 4xx. */
  status: WriteResult['status'] | 'rejected';
  /** Earlier writes of the case this one superseded (by index). */
  superseded: number[];
  /** The earlier write this one was merged into. */
  mergedInto: number | null;
  /** What the corpus says should happen, and to which earlier writes. */
  expected: Expectation;
  correct: boolean;
}

export interface Expectation {
  kind: 'new' | 'supersedes' | 'refines' | 'merges' | 'content-free';
  earlier: number[];
}

/** An expectation as the report prints it. */
export function describeExpectation({ kind, earlier }: Expectation): string {
  if (kind === 'new') return 'new memory';
  if (kind === 'content-free') return 'own memory or 422';
  if (kind === 'refines') return `refines ${earlier.join(', ')} (new or merged)`;
  return `${kind === 'merges' ? 'merges into' : 'supersedes'} ${earlier.join(', ')}`;
}

export interface CaseOutcome {
  split: string;
  id: string;
  group: ConflictGroup;
  language: string;
  writes: WriteOutcome[];
  /** Writes whose memory ended superseded or rewritten by a merge, when it should not have. */
  wronglyChanged: number[];
  correct: boolean;
}

export interface PrecisionRecall {
  predicted: number;
  expected: number;
  correct: number;
  precision: number;
  recall: number;
}

export interface ConflictSummary {
  cases: number;
  writes: number;
  supersede: PrecisionRecall;
  merge: PrecisionRecall;
  /** Facts of the unrelated cases that were superseded or merged (either side). */
  unrelatedFacts: number;
  unrelatedAffected: number;
  contradictions: number;
  contradictionsResolved: number;
  refinements: number;
  refinementsSuperseded: number;
  restatements: number;
  restatementsMerged: number;
  contentFree: number;
  contentFreeMergedOrSuperseding: number;
}

export interface ConflictEvalResult {
  kind: typeof CONFLICTS_KIND;
  dataset: { path: string; splits: string[]; cases: number; writes: number };
  service: { url: string; spawned: boolean };
  bySplit: Record<string, ConflictSummary>;
  byLanguage: Record<string, ConflictSummary>;
  overall: ConflictSummary;
  cases: CaseOutcome[];
  generatedAt: string;
  durationSeconds: number;
}

export interface ConflictEvalOptions {
  dataset: string;
  url?: string;
  apiKey?: string;
  progress?: boolean;
}

export async function runConflicts(options: ConflictEvalOptions): Promise<ConflictEvalResult> {
  const started = performance.now();
  const splits = await loadConflicts(options.dataset);
  const target = await openEvalTarget(options);
  const runId = evalRunId();
  const total = splits.reduce((n, s) => n + s.cases.reduce((m, c) => m + c.writes.length, 0), 0);
  const bar = createProgress({ label: 'writes ', total, unit: 'writes', enabled: options.progress ?? true });
  const cases: CaseOutcome[] = [];
  try {
    for (const split of splits) {
      for (const c of split.cases) {
        cases.push(await runCase(target.client, evalUserId(runId, split.split, c.id), split.split, c));
        bar.tick(c.writes.length);
      }
    }
    bar.done();
  } finally {
    await target.close();
  }
  const bySplit = Object.fromEntries(splits.map((s) => [s.split, summarise(cases.filter((c) => c.split === s.split))]));
  const languages = [...new Set(cases.map((c) => c.language))].sort();
  const byLanguage = Object.fromEntries(languages.map((l) => [l, summarise(cases.filter((c) => c.language === l))]));
  return {
    kind: CONFLICTS_KIND,
    dataset: {
      path: options.dataset,
      splits: splits.map((s) => s.split),
      cases: cases.length,
      writes: total,
    },
    service: { url: target.url, spawned: target.spawned },
    bySplit,
    byLanguage,
    overall: summarise(cases),
    cases,
    generatedAt: new Date().toISOString(),
    durationSeconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

type Client = Awaited<ReturnType<typeof openEvalTarget>>['client'];

async function runCase(client: Client, userId: string, split: string, c: ConflictCase): Promise<CaseOutcome> {
  const idOfWrite: Array<string | null> = [];
  const writeOfId = new Map<string, number>();
  const outcomes: WriteOutcome[] = [];
  for (const [index, write] of c.writes.entries()) {
    const input: MemoryInput = {
      content: write.content,
      memory_type: write.memory_type ?? c.memory_type,
      user_id: userId,
      ...(write.query ? { query: write.query } : {}),
      ...(write.key ? { metadata: { key: write.key } } : {}),
    };
    let result: WriteResult | 'rejected';
    try {
      result = await client.store(input);
    } catch (error) {
      if (!(error instanceof MemoryApiError) || error.status >= 500) throw error;
      result = 'rejected';
    }
    const status = result === 'rejected' ? 'rejected' : result.status;
    const ownRow = status === 'created' || status === 'superseded' || status === 'quarantined';
    const id = result === 'rejected' ? null : result.id;
    idOfWrite.push(ownRow ? id : null);
    if (ownRow && id) writeOfId.set(id, index);
    const superseded =
      result === 'rejected'
        ? []
        : (result.superseded_ids ?? []).flatMap((sid) => {
            const earlier = writeOfId.get(sid);
            return earlier === undefined ? [] : [earlier];
          });
    const mergedInto = status === 'merged' && id ? (writeOfId.get(id) ?? null) : null;
    outcomes.push(judgeWrite(index, write, status, superseded.sort(), mergedInto));
  }
  // The end state: a memory that should have stayed as written but was superseded or rewritten.
  const protectedWrites = new Set(
    c.writes.flatMap((_, i) => {
      const expectedToChange = c.writes.some((w) => w.supersedes?.includes(i) || w.merges === i || w.refines === i);
      return expectedToChange || idOfWrite[i] === null ? [] : [i];
    }),
  );
  const wronglyChanged: number[] = [];
  for (const i of protectedWrites) {
    const stored = await client.get(idOfWrite[i] as string);
    if (stored.status !== 'active' || stored.content !== c.writes[i]?.content) wronglyChanged.push(i);
  }
  return {
    split,
    id: c.id,
    group: c.group,
    language: c.language,
    writes: outcomes,
    wronglyChanged,
    correct: outcomes.every((o) => o.correct) && wronglyChanged.length === 0,
  };
}

function judgeWrite(
  index: number,
  write: z.infer<typeof Write>,
  status: WriteOutcome['status'],
  superseded: number[],
  mergedInto: number | null,
): WriteOutcome {
  const base = { index, content: write.content, status, superseded, mergedInto };
  if (write.supersedes) {
    const earlier = [...write.supersedes].sort();
    const correct = status === 'superseded' && earlier.join() === superseded.join();
    return { ...base, expected: { kind: 'supersedes', earlier }, correct };
  }
  if (write.merges !== undefined) {
    return { ...base, expected: { kind: 'merges', earlier: [write.merges] }, correct: mergedInto === write.merges };
  }
  if (write.refines !== undefined) {
    const kept = superseded.length === 0 && (mergedInto === null || mergedInto === write.refines);
    return { ...base, expected: { kind: 'refines', earlier: [write.refines] }, correct: kept && status !== 'rejected' };
  }
  if (write.content_free) {
    const ownOrRefused = status === 'created' || status === 'rejected' || status === 'duplicate';
    return { ...base, expected: { kind: 'content-free', earlier: [] }, correct: ownOrRefused };
  }
  return { ...base, expected: { kind: 'new', earlier: [] }, correct: status === 'created' };
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 1 : round(part / whole);
}

function summarise(cases: readonly CaseOutcome[]): ConflictSummary {
  const writes = cases.flatMap((c) => c.writes.map((w) => ({ c, w })));
  const expectedSupersedes = new Set<string>();
  const expectedMerges = new Set<string>();
  const acceptableMerges = new Set<string>();
  const predictedSupersedes: string[] = [];
  const predictedMerges: string[] = [];
  for (const { c, w } of writes) {
    const pair = (j: number) => `${c.split}/${c.id}/${w.index}>${j}`;
    const { kind, earlier } = w.expected;
    for (const j of earlier) {
      if (kind === 'supersedes') expectedSupersedes.add(pair(j));
      if (kind === 'merges') expectedMerges.add(pair(j));
      if (kind === 'merges' || kind === 'refines') acceptableMerges.add(pair(j));
    }
    for (const j of w.superseded) predictedSupersedes.push(pair(j));
    if (w.mergedInto !== null) predictedMerges.push(pair(w.mergedInto));
  }
  const supersedeHits = predictedSupersedes.filter((p) => expectedSupersedes.has(p)).length;
  const mergeAccepted = predictedMerges.filter((p) => acceptableMerges.has(p)).length;
  const mergeHits = predictedMerges.filter((p) => expectedMerges.has(p)).length;
  const group = (g: ConflictGroup) => cases.filter((c) => c.group === g);
  const unrelated = group('unrelated');
  const affected = (c: CaseOutcome) =>
    new Set([
      ...c.wronglyChanged,
      ...c.writes.flatMap((w) => (w.superseded.length > 0 || w.mergedInto !== null ? [w.index, ...w.superseded] : [])),
    ]).size;
  const contentFree = group('content-free').flatMap((c) => c.writes.filter((w) => w.expected.kind === 'content-free'));
  return {
    cases: cases.length,
    writes: writes.length,
    supersede: {
      predicted: predictedSupersedes.length,
      expected: expectedSupersedes.size,
      correct: supersedeHits,
      precision: ratio(supersedeHits, predictedSupersedes.length),
      recall: ratio(supersedeHits, expectedSupersedes.size),
    },
    merge: {
      predicted: predictedMerges.length,
      expected: expectedMerges.size,
      correct: mergeHits,
      precision: ratio(mergeAccepted, predictedMerges.length),
      recall: ratio(mergeHits, expectedMerges.size),
    },
    unrelatedFacts: unrelated.reduce((n, c) => n + c.writes.length, 0),
    unrelatedAffected: unrelated.reduce((n, c) => n + affected(c), 0),
    contradictions: group('contradiction').length,
    contradictionsResolved: group('contradiction').filter((c) => c.correct).length,
    refinements: group('refinement').length,
    refinementsSuperseded: group('refinement').filter((c) =>
      c.writes.some((w) => w.superseded.length > 0 || c.wronglyChanged.length > 0),
    ).length,
    restatements: group('restatement').length,
    restatementsMerged: group('restatement').filter((c) => c.correct).length,
    contentFree: contentFree.length,
    contentFreeMergedOrSuperseding: contentFree.filter((w) => !w.correct).length,
  };
}
