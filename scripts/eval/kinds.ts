/**
 * The dataset kinds `npm run eval` knows. Each recognises its own files, runs against a memory-api
 * and reports in text, JSON and HTML. A new kind is one entry here (and its own module): main.ts
 * picks the first kind whose `matches` accepts the dataset's first JSON document.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isConflictCorpus, runConflicts } from './conflicts.ts';
import { formatConflictTables, renderConflictsHtml } from './conflicts-report.ts';
import { detectLayout } from './datasets.ts';
import { isPersonalFacts, runPersonalFacts } from './personal-facts.ts';
import { formatPersonalFactsTables, renderPersonalFactsHtml } from './personal-facts-report.ts';
import { formatEvalTables, renderEvalHtml } from './report.ts';
import { type IngestMode, runEval } from './run.ts';

export interface EvalRunOptions {
  dataset: string;
  /** Cut-offs for recall@k (conversation datasets). */
  ks?: readonly number[];
  url?: string;
  apiKey?: string;
  progress?: boolean;
  /** Conversation datasets: how turns are written (batches or one `/store` each). */
  ingest?: IngestMode;
  /** Conversation datasets: only the conversations whose id matches. */
  conversations?: RegExp;
}

export interface EvalReport {
  /** What --json writes. */
  json: unknown;
  /** The tables printed at the end. */
  text: string;
  /** What --html writes. */
  html(): string;
}

export interface EvalKind {
  name: string;
  matches(sample: unknown): boolean;
  run(options: EvalRunOptions): Promise<EvalReport>;
}

export const EVAL_KINDS: readonly EvalKind[] = [
  {
    name: 'personal-facts',
    matches: isPersonalFacts,
    async run(options) {
      const result = await runPersonalFacts(options);
      return { json: result, text: formatPersonalFactsTables(result), html: () => renderPersonalFactsHtml(result) };
    },
  },
  {
    name: 'conflicts',
    matches: isConflictCorpus,
    async run(options) {
      const result = await runConflicts(options);
      return { json: result, text: formatConflictTables(result), html: () => renderConflictsHtml(result) };
    },
  },
  {
    name: 'conversations',
    matches: (sample) => {
      try {
        detectLayout(Array.isArray(sample) ? sample[0] : sample);
        return true;
      } catch {
        // Not REALTALK or LoCoMo: another kind's file.
        return false;
      }
    },
    async run(options) {
      const result = await runEval(options);
      return { json: result, text: formatEvalTables(result), html: () => renderEvalHtml(result) };
    },
  },
];

/** The kind of the dataset at `path` (a file, or the first `.json` file of a directory). */
export async function detectEvalKind(path: string, kinds: readonly EvalKind[] = EVAL_KINDS): Promise<EvalKind> {
  let file = path;
  if ((await stat(path)).isDirectory()) {
    const first = (await readdir(path)).filter((f) => f.endsWith('.json')).sort()[0];
    if (first === undefined) throw new Error(`no .json files in ${path}`);
    file = join(path, first);
  }
  const sample: unknown = JSON.parse(await readFile(file, 'utf8'));
  const kind = kinds.find((k) => k.matches(sample));
  if (!kind) throw new Error(`${file}: not a dataset of any eval kind (${kinds.map((k) => k.name).join(', ')})`);
  return kind;
}
