/**
 * Paraphrased questions about personal facts, scored on an Embedder alone, in process: per
 * person, embed every fact; per question, rank that person's facts by cosine.
 *
 *   npx tsx scripts/eval/paraphrase-recall.ts [--fixture shared/embedding/test/fixtures/paraphrase-facts.json]
 *       [--features default|'{"wordVectors":0}'] [--ablation] [--dim 512]
 *
 * Most questions share no content word with their fact ("What instrument is she studying?" →
 * "Maya is learning to play the cello."), which is what word vectors are for. Reported per split:
 * `dev` was looked at while choosing weights, `heldout` never was, `zh` checks that Chinese
 * (lexical features only) keeps working.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BuiltinEmbedder, type BuiltinFeatures, dot, type Embedder, loadWordTable } from '@hindsight/embedding';
import { embedderAblation } from './embedding-recall.ts';

export interface ParaphraseFixture {
  people: Array<{ name: string; split: string; facts: Array<[fact: string, question: string]> }>;
}

export interface ParaphraseScore {
  questions: number;
  hitAt1: number;
  hitAt3: number;
  mrr: number;
}

export const DEFAULT_PARAPHRASE_FIXTURE = 'shared/embedding/test/fixtures/paraphrase-facts.json';

export function loadParaphraseFixture(path: string): ParaphraseFixture {
  return JSON.parse(readFileSync(path, 'utf8')) as ParaphraseFixture;
}

/** Split → score; every question is ranked against the facts of its own person. */
export async function measureParaphraseRecall(
  fixture: ParaphraseFixture,
  embedder: Embedder,
): Promise<Record<string, ParaphraseScore>> {
  const ranks = new Map<string, number[]>();
  for (const person of fixture.people) {
    const facts = await embedder.embed(person.facts.map(([fact]) => fact));
    const questions = await embedder.embed(person.facts.map(([, question]) => question));
    const split = ranks.get(person.split) ?? [];
    questions.forEach((q, qi) => {
      const own = dot(q, facts[qi] as Float32Array);
      // Rank = other facts scoring at least as high: a tie (e.g. nothing in common with any fact) is a miss.
      split.push(facts.filter((f, fi) => fi !== qi && dot(q, f) >= own).length);
    });
    ranks.set(person.split, split);
  }
  return Object.fromEntries(
    [...ranks].map(([split, r]) => [
      split,
      {
        questions: r.length,
        hitAt1: r.filter((x) => x === 0).length / r.length,
        hitAt3: r.filter((x) => x < 3).length / r.length,
        mrr: r.reduce((s, x) => s + 1 / (x + 1), 0) / r.length,
      },
    ]),
  );
}

export function formatParaphraseScores(label: string, model: string, scores: Record<string, ParaphraseScore>): string {
  const pct = (x: number) => (x * 100).toFixed(1).padStart(5);
  const parts = Object.entries(scores).map(
    ([split, s]) => `${split} (${s.questions}) @1 ${pct(s.hitAt1)} @3 ${pct(s.hitAt3)} MRR ${s.mrr.toFixed(3)}`,
  );
  return `${label.padEnd(34)} ${model.padEnd(22)} ${parts.join(' | ')}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      fixture: { type: 'string', default: DEFAULT_PARAPHRASE_FIXTURE },
      features: { type: 'string', default: 'default' },
      ablation: { type: 'boolean', default: false },
      dim: { type: 'string', default: '' },
    },
  });
  const fixture = loadParaphraseFixture(values.fixture);
  const dimension = values.dim ? Number(values.dim) : undefined;
  const wordTable = loadWordTable();
  const steps: Array<[string, Partial<BuiltinFeatures>]> = values.ablation
    ? embedderAblation()
    : [[`features ${values.features}`, values.features === 'default' ? {} : JSON.parse(values.features)]];
  for (const [label, features] of steps) {
    const embedder = new BuiltinEmbedder({ dimension, features, wordTable });
    console.log(formatParaphraseScores(label, embedder.model, await measureParaphraseRecall(fixture, embedder)));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
