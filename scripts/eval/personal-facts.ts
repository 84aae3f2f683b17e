/**
 * The personal-facts eval: everyday facts about a few people, each stored through memory-api's
 * HTTP API as one semantic memory of that person's user, one write at a time as an agent stores
 * them; then paraphrased questions, each answered by exactly one fact, scored as hit@1, hit@3,
 * hit@10 and MRR beside plain BM25 over the same facts in the same run. Questions with no fact
 * behind them measure the relevance floor: how many results "nothing relevant" gets back.
 *
 * A dataset is a JSON file (or a directory of them, one split each) of this shape:
 *   {kind: "personal-facts", split, description?, people: [{id, name, language, facts: [{id, topic,
 *    memory_type, content, questions: [...]}], unanswerable: [...]}]}
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createProgress } from '@hindsight/cli/progress';
import { MemoryApiError } from '@hindsight/memory-client';
import { MAX_TOKEN_BUDGET, MemoryType, type WriteResult } from '@hindsight/memory-model';
import { analyzeText } from '@hindsight/text';
import { z } from 'zod';
import { Bm25Index } from './bm25.ts';
import { mean, percentile, round } from './scoring.ts';
import { evalRunId, evalUserId, openEvalTarget } from './target.ts';

export const PERSONAL_FACTS_KIND = 'personal-facts';

const Slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, 'ids are lower-case slugs');

const Fact = z
  .object({
    id: Slug,
    topic: z.string().min(1),
    memory_type: MemoryType,
    content: z.string().trim().min(1).max(500),
    questions: z.array(z.string().trim().min(1)).min(1),
  })
  .strict();

const Person = z
  .object({
    id: Slug,
    /** How the facts name the person (left out of the word-overlap figures: every fact has it). */
    name: z.string().min(1),
    language: z.string().min(2),
    facts: z.array(Fact).min(1),
    unanswerable: z.array(z.string().trim().min(1)).default([]),
  })
  .strict()
  .superRefine((person, ctx) => {
    const seen = new Set<string>();
    for (const fact of person.facts) {
      if (seen.has(fact.id)) ctx.addIssue({ code: 'custom', message: `fact id "${fact.id}" appears twice` });
      seen.add(fact.id);
    }
  });

export const PersonalFactsFile = z
  .object({
    kind: z.literal(PERSONAL_FACTS_KIND),
    split: Slug,
    description: z.string().optional(),
    people: z.array(Person).min(1),
  })
  .strict();
export type PersonalFactsFile = z.infer<typeof PersonalFactsFile>;
export type PersonalFactsPerson = z.infer<typeof Person>;

/** True for the parsed JSON of a personal-facts file. */
export function isPersonalFacts(sample: unknown): boolean {
  return typeof sample === 'object' && sample !== null && (sample as { kind?: unknown }).kind === PERSONAL_FACTS_KIND;
}

/** Reads one file or every `.json` file of a directory (one split each), validated. */
export async function loadPersonalFacts(path: string): Promise<PersonalFactsFile[]> {
  const files = (await stat(path)).isDirectory()
    ? (await readdir(path))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(path, f))
    : [path];
  if (files.length === 0) throw new Error(`no .json files in ${path}`);
  const splits: PersonalFactsFile[] = [];
  for (const file of files) {
    const parsed = PersonalFactsFile.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw new Error(`${file}: not a valid personal-facts file:\n  ${problems.join('\n  ')}`);
    }
    if (splits.some((s) => s.split === parsed.data.split))
      throw new Error(`${file}: split "${parsed.data.split}" twice`);
    splits.push(parsed.data);
  }
  return splits;
}

/**
 * Content terms a question shares with its fact: stemmed words, numbers and CJK bigrams (single
 * CJK characters are not words), without stop words and without the person's name.
 */
export function sharedContentTerms(question: string, fact: string, name: string): string[] {
  const words = (text: string) =>
    new Set(analyzeText(text).flatMap((t) => (t.stop || t.kind === 'cjk-char' ? [] : [t.term])));
  const nameTerms = words(name);
  const factTerms = words(fact);
  return [...words(question)].filter((t) => factTerms.has(t) && !nameTerms.has(t));
}

export interface FactQuestionResult {
  split: string;
  person: string;
  language: string;
  topic: string;
  fact: string;
  question: string;
  /** Content terms shared with the fact (see sharedContentTerms). */
  sharedTerms: string[];
  /** 1-based rank of the fact among hindsight's results; 0 when it is not among them. */
  rank: number;
  bm25Rank: number;
  results: number;
  topScore: number | null;
  /** The score hindsight gave the right fact, when returned. */
  factScore: number | null;
  /** What hindsight ranked above the right fact (at most three, best first), with scores. */
  ahead: Array<{ content: string; score: number; similarity: number; keyword: number }>;
}

export interface ReplacedFact {
  split: string;
  person: string;
  /** The fact written earlier, and the later one whose write merged or superseded it. */
  fact: string;
  by: string;
  status: 'merged' | 'superseded';
}

export interface UnanswerableResult {
  split: string;
  person: string;
  language: string;
  question: string;
  results: number;
  topScore: number | null;
}

export interface HitSummary {
  questions: number;
  hit1: number;
  hit3: number;
  hit10: number;
  mrr: number;
}

export interface PersonalFactsSummary {
  hindsight: HitSummary;
  bm25: HitSummary;
  /** Unanswerable questions: how many results the floor let through. */
  unanswerable: { questions: number; meanResults: number; answeredEmpty: number; meanTopScore: number };
  /** Share of questions sharing no content term with their fact. */
  noSharedTerms: number;
}

export interface PersonalFactsResult {
  kind: typeof PERSONAL_FACTS_KIND;
  dataset: { path: string; splits: string[]; people: number; facts: number; questions: number; unanswerable: number };
  service: { url: string; spawned: boolean };
  topK: number;
  writes: Record<WriteResult['status'] | 'rejected', number>;
  /** Facts a later fact of the same person took the place of (merged into it or superseded by it). */
  replaced: ReplacedFact[];
  /** split → summary, plus "all". */
  bySplit: Record<string, PersonalFactsSummary>;
  /** `${split}/${language}` → summary. */
  byLanguage: Record<string, PersonalFactsSummary>;
  questions: FactQuestionResult[];
  unanswerable: UnanswerableResult[];
  latencyMs: { p50: number; p95: number };
  generatedAt: string;
  durationSeconds: number;
}

export interface PersonalFactsOptions {
  dataset: string;
  url?: string;
  apiKey?: string;
  progress?: boolean;
  /** Results asked for per question (hit@10 needs at least 10). */
  topK?: number;
}

export async function runPersonalFacts(options: PersonalFactsOptions): Promise<PersonalFactsResult> {
  const started = performance.now();
  const topK = options.topK ?? 10;
  const splits = await loadPersonalFacts(options.dataset);
  const target = await openEvalTarget(options);
  const runId = evalRunId();
  const showProgress = options.progress ?? true;
  const writes: PersonalFactsResult['writes'] = {
    created: 0,
    duplicate: 0,
    merged: 0,
    superseded: 0,
    quarantined: 0,
    rejected: 0,
  };
  const questions: FactQuestionResult[] = [];
  const unanswerable: UnanswerableResult[] = [];
  const replaced: ReplacedFact[] = [];
  const latencies: number[] = [];
  const people = splits.flatMap((s) => s.people.map((person) => ({ split: s.split, person })));
  const totalFacts = people.reduce((n, p) => n + p.person.facts.length, 0);
  const totalQuestions = people.reduce(
    (n, p) => n + p.person.unanswerable.length + p.person.facts.reduce((m, f) => m + f.questions.length, 0),
    0,
  );

  try {
    const writeBar = createProgress({ label: 'store  ', total: totalFacts, unit: 'facts', enabled: showProgress });
    const stored = new Map<string, Map<string, Set<string>>>();
    for (const { split, person } of people) {
      const userId = evalUserId(runId, split, person.id);
      const factsOf = new Map<string, Set<string>>();
      for (const fact of person.facts) {
        let result: WriteResult;
        try {
          result = await target.client.store({ content: fact.content, memory_type: fact.memory_type, user_id: userId });
        } catch (error) {
          if (!(error instanceof MemoryApiError) || error.status !== 422) throw error;
          writes.rejected += 1;
          writeBar.tick();
          continue;
        }
        writes[result.status] += 1;
        if (result.status === 'superseded' || result.status === 'merged') {
          const earlier = result.status === 'merged' ? [result.id] : (result.superseded_ids ?? []);
          for (const id of earlier)
            for (const old of factsOf.get(id) ?? [])
              replaced.push({ split, person: person.id, fact: old, by: fact.id, status: result.status });
        }
        const facts = factsOf.get(result.id) ?? new Set<string>();
        facts.add(fact.id);
        factsOf.set(result.id, facts);
        writeBar.tick();
      }
      stored.set(userId, factsOf);
    }
    writeBar.done();

    const askBar = createProgress({
      label: 'search ',
      total: totalQuestions,
      unit: 'questions',
      enabled: showProgress,
    });
    for (const { split, person } of people) {
      const userId = evalUserId(runId, split, person.id);
      const factsOf = stored.get(userId) as Map<string, Set<string>>;
      const bm25 = new Bm25Index();
      for (const fact of person.facts) bm25.add(fact.id, fact.content);
      const ask = async (query: string) => {
        const t0 = performance.now();
        const answer = await target.client.search({
          query,
          user_id: userId,
          top_k: topK,
          token_budget: MAX_TOKEN_BUDGET,
        });
        latencies.push(performance.now() - t0);
        askBar.tick();
        return answer.results;
      };
      for (const fact of person.facts) {
        for (const question of fact.questions) {
          const results = await ask(question);
          const rank = results.findIndex((r) => factsOf.get(r.id)?.has(fact.id)) + 1;
          const bm25Rank = bm25.search(question, topK).findIndex((h) => h.id === fact.id) + 1;
          questions.push({
            split,
            person: person.id,
            language: person.language,
            topic: fact.topic,
            fact: fact.id,
            question,
            sharedTerms: sharedContentTerms(question, fact.content, person.name),
            rank,
            bm25Rank,
            results: results.length,
            topScore: results[0]?.score ?? null,
            factScore: rank > 0 ? (results[rank - 1]?.score ?? null) : null,
            ahead: results.slice(0, rank > 0 ? Math.min(rank - 1, 3) : 3).map((r) => ({
              content: r.content,
              score: r.score,
              similarity: r.scores.similarity,
              keyword: r.scores.keyword,
            })),
          });
        }
      }
      for (const question of person.unanswerable) {
        const results = await ask(question);
        unanswerable.push({
          split,
          person: person.id,
          language: person.language,
          question,
          results: results.length,
          topScore: results[0]?.score ?? null,
        });
      }
    }
    askBar.done();

    const bySplit: Record<string, PersonalFactsSummary> = {};
    for (const { split } of splits) {
      bySplit[split] = summarise(
        questions.filter((q) => q.split === split),
        unanswerable.filter((q) => q.split === split),
      );
    }
    if (splits.length > 1) bySplit.all = summarise(questions, unanswerable);
    const byLanguage: Record<string, PersonalFactsSummary> = {};
    for (const key of new Set(questions.map((q) => `${q.split}/${q.language}`))) {
      byLanguage[key] = summarise(
        questions.filter((q) => `${q.split}/${q.language}` === key),
        unanswerable.filter((q) => `${q.split}/${q.language}` === key),
      );
    }

    return {
      kind: PERSONAL_FACTS_KIND,
      dataset: {
        path: options.dataset,
        splits: splits.map((s) => s.split),
        people: people.length,
        facts: totalFacts,
        questions: questions.length,
        unanswerable: unanswerable.length,
      },
      service: { url: target.url, spawned: target.spawned },
      topK,
      writes,
      replaced,
      bySplit,
      byLanguage,
      questions,
      unanswerable,
      latencyMs: { p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)) },
      generatedAt: new Date().toISOString(),
      durationSeconds: round((performance.now() - started) / 1000),
    };
  } finally {
    await target.close();
  }
}

/** Hit rates at 1, 3 and 10 and the mean reciprocal rank of 1-based ranks (0 = not found). */
export function hitSummary(ranks: readonly number[]): HitSummary {
  const share = (k: number) => round(mean(ranks.map((r) => (r > 0 && r <= k ? 1 : 0))));
  return {
    questions: ranks.length,
    hit1: share(1),
    hit3: share(3),
    hit10: share(10),
    mrr: round(mean(ranks.map((r) => (r > 0 ? 1 / r : 0)))),
  };
}

function summarise(
  questions: readonly FactQuestionResult[],
  unanswerable: readonly UnanswerableResult[],
): PersonalFactsSummary {
  return {
    hindsight: hitSummary(questions.map((q) => q.rank)),
    bm25: hitSummary(questions.map((q) => q.bm25Rank)),
    unanswerable: {
      questions: unanswerable.length,
      meanResults: round(mean(unanswerable.map((u) => u.results))),
      answeredEmpty: round(mean(unanswerable.map((u) => (u.results === 0 ? 1 : 0)))),
      meanTopScore: round(mean(unanswerable.map((u) => u.topScore ?? 0))),
    },
    noSharedTerms: round(mean(questions.map((q) => (q.sharedTerms.length === 0 ? 1 : 0)))),
  };
}
