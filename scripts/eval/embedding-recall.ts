/**
 * Retrieval quality of an Embedder alone, in process: per conversation, embed every turn; per
 * question, rank the turns by cosine and score the gold evidence turns.
 *
 *   npx tsx scripts/eval/embedding-recall.ts --dataset ../shared/datasets/realtalk [--dim 384]
 *       [--features baseline|default|'{"charNgrams":0.3}'] [--ablation]
 *
 * Recall@k is the share of a question's evidence dia_ids among the top k turns, averaged per
 * category and overall (questions without evidence are skipped); MRR uses the first evidence hit.
 * Evidence the conversation does not contain counts as missed, as in the literature, and the
 * report states that ceiling. `--ablation` measures a fixed series of feature sets in one run.
 */
import { parseArgs } from 'node:util';
import {
  BASELINE_FEATURES,
  BUILTIN_FEATURES,
  BuiltinEmbedder,
  type BuiltinFeatures,
  dot,
  type Embedder,
  LEXICAL_FEATURES,
  loadWordTable,
} from '@hindsight/embedding';
import { conversationTurns, type Dataset, type DatasetTurn, loadDataset, unreachableEvidence } from './datasets.ts';
import { type QuestionScore, type ScoreSummary, scoreQuestion, summariseByCategory } from './scoring.ts';

export const RECALL_KS = [5, 10, 25, 50] as const;

export interface RecallReport extends ScoreSummary {
  model: string;
  /** category → its summary. */
  byCategory: Record<string, ScoreSummary>;
  embedMs: number;
}

/** Scores one embedder on a dataset, the way the eval scores memory-api; pure apart from the embedder calls. */
export async function measureEmbeddingRecall(dataset: Dataset, embedder: Embedder): Promise<RecallReport> {
  const scores: QuestionScore[] = [];
  let embedMs = 0;

  for (const conversation of dataset.conversations) {
    const turns = conversationTurns(conversation);
    const asked = conversation.questions.filter((q) => q.evidence.length > 0);
    if (turns.length === 0 || asked.length === 0) continue;
    const started = performance.now();
    const turnVectors = await embedder.embed(turns.map((t) => t.text));
    const questionVectors = await embedder.embed(asked.map((q) => q.question));
    embedMs += performance.now() - started;

    asked.forEach((question, qi) => {
      const qv = questionVectors[qi] as Float32Array;
      // Unit vectors: the dot product is the cosine.
      const ranked = turnVectors
        .map((tv, ti) => ({ id: (turns[ti] as DatasetTurn).dia_id, score: dot(qv, tv) }))
        .sort((a, b) => b.score - a.score);
      const score = scoreQuestion(
        question.category,
        question.evidence,
        ranked.map((r) => [r.id]),
        RECALL_KS,
      );
      // Every turn is ranked here, so the reciprocal rank looks past the largest k.
      const evidence = new Set(question.evidence);
      const firstHit = ranked.findIndex((r) => evidence.has(r.id));
      scores.push({ ...score, reciprocalRank: firstHit >= 0 ? 1 / (firstHit + 1) : 0 });
    });
  }

  const { overall, byCategory } = summariseByCategory(scores, RECALL_KS);
  return { model: embedder.model, ...overall, byCategory, embedMs };
}

export function formatReport(label: string, r: RecallReport): string {
  const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}`.padStart(5);
  const lines = [
    `${label.padEnd(34)} ${r.model.padEnd(22)} R@5 ${pct(r.recall[5])}  R@10 ${pct(r.recall[10])}  R@25 ${pct(r.recall[25])}  R@50 ${pct(r.recall[50])}  MRR ${r.mrr.toFixed(3)}  (${r.questions} q, embed ${Math.round(r.embedMs)} ms)`,
  ];
  for (const [category, c] of Object.entries(r.byCategory)) {
    lines.push(
      `    category ${category} (${c.questions} q)`.padEnd(58) +
        `R@5 ${pct(c.recall[5])}  R@10 ${pct(c.recall[10])}  R@25 ${pct(c.recall[25])}  R@50 ${pct(c.recall[50])}`,
    );
  }
  return lines.join('\n');
}

/**
 * Feature sets of the ablation: each lexical idea added to the one before up to v2 (lexical only),
 * then word vectors alone, word vectors beside the lexical features with SIF off and on (= v3).
 */
export function embedderAblation(): Array<[string, Partial<BuiltinFeatures>]> {
  const steps: Array<[string, Partial<BuiltinFeatures>]> = [];
  let features: BuiltinFeatures = { ...BASELINE_FEATURES };
  const add = (label: string, change: Partial<BuiltinFeatures>) => {
    features = { ...features, ...change };
    steps.push([label, features]);
  };
  add('baseline: stemmed terms, raw tf', {});
  add('+ sublinear tf', { sublinearTf: true });
  add('+ rarity prior', { rarityPrior: true });
  add(`+ char ${BUILTIN_FEATURES.charNgramSize}-grams`, { charNgrams: BUILTIN_FEATURES.charNgrams });
  add('+ word bigrams', { wordBigrams: BUILTIN_FEATURES.wordBigrams, cjkChars: BUILTIN_FEATURES.cjkChars });
  add('+ 2 hash probes per feature', { probes: BUILTIN_FEATURES.probes });
  add('+ topic thesaurus = v2 (lexical)', { concepts: BUILTIN_FEATURES.concepts });
  // Nearly all weight on word vectors: the lexical block only breaks ties.
  steps.push(['word vectors only (SIF)', { ...LEXICAL_FEATURES, wordVectors: 0.99, sif: BUILTIN_FEATURES.sif }]);
  add('+ word vectors, SIF off', { wordVectors: BUILTIN_FEATURES.wordVectors, sif: 0 });
  add('+ SIF weights = v3 (default)', { sif: BUILTIN_FEATURES.sif });
  return steps;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string', default: '../shared/datasets/realtalk' },
      dim: { type: 'string', default: '' },
      features: { type: 'string', default: 'default' },
      ablation: { type: 'boolean', default: false },
      dims: { type: 'string', default: '' },
    },
  });
  const dataset = await loadDataset(values.dataset);
  const turns = dataset.conversations.reduce((n, c) => n + conversationTurns(c).length, 0);
  const askedQuestions = dataset.conversations.reduce((n, c) => n + c.questions.length, 0);
  const evidence = dataset.conversations.reduce(
    (n, c) => n + c.questions.reduce((m, q) => m + q.evidence.length, 0),
    0,
  );
  const missing = dataset.conversations.reduce((n, c) => n + unreachableEvidence(c), 0);
  console.log(
    `${dataset.name} (${dataset.layout}): ${dataset.conversations.length} conversations, ${turns} turns, ${askedQuestions} questions; ` +
      `${missing} of ${evidence} evidence ids are not in their conversation (never retrievable)`,
  );
  const dim = values.dim ? Number(values.dim) : undefined;

  const wordTable = loadWordTable();
  if (values.ablation) {
    for (const [label, features] of embedderAblation()) {
      const report = await measureEmbeddingRecall(
        dataset,
        new BuiltinEmbedder({ dimension: dim, features, wordTable }),
      );
      console.log(formatReport(label, report));
    }
    return;
  }
  const features =
    values.features === 'baseline'
      ? { ...BASELINE_FEATURES }
      : values.features === 'default'
        ? {}
        : (JSON.parse(values.features) as Partial<BuiltinFeatures>);
  const dims = values.dims ? values.dims.split(',').map(Number) : [dim];
  for (const d of dims) {
    const report = await measureEmbeddingRecall(dataset, new BuiltinEmbedder({ dimension: d, features, wordTable }));
    console.log(formatReport(`features ${values.features}`, report));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
