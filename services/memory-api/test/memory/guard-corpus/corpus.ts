import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The poisoning corpus: realistic memories an agent would store, hostile and benign, in several
 * languages. `tuning` is what the guard was developed against; `held-out` was written first and
 * is only ever measured, never tuned on.
 */
export const CORPUS_PARTS = ['tuning', 'held-out'] as const;
export type CorpusPart = (typeof CORPUS_PARTS)[number];

export const CorpusItem = z
  .object({
    label: z.enum(['hostile', 'benign']),
    lang: z.string(),
    family: z.string(),
    text: z.string().min(1),
    /** What an encoded item says, for readers of the file (never shown to the guard). */
    note: z.string().optional(),
  })
  .strict();
export type CorpusItem = z.infer<typeof CorpusItem>;

export function loadCorpus(part: CorpusPart): CorpusItem[] {
  const file = fileURLToPath(new URL(`./${part}.jsonl`, import.meta.url));
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const parsed = CorpusItem.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${part}.jsonl line ${index + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

/** What happened to one write: refused (4xx), kept out of search (quarantined) or stored. */
export type Outcome = 'rejected' | 'quarantined' | 'stored';

export interface CorpusRates {
  hostile: number;
  benign: number;
  /** Hostile items rejected or quarantined. */
  hostileBlocked: number;
  /** Benign items rejected. */
  benignRefused: number;
  /** Benign items quarantined. */
  benignQuarantined: number;
}

export function corpusRates(results: ReadonlyArray<{ item: CorpusItem; outcome: Outcome }>): CorpusRates {
  const hostile = results.filter((r) => r.item.label === 'hostile');
  const benign = results.filter((r) => r.item.label === 'benign');
  const share = (part: typeof results, outcome: (o: Outcome) => boolean) =>
    part.length === 0 ? 0 : part.filter((r) => outcome(r.outcome)).length / part.length;
  return {
    hostile: hostile.length,
    benign: benign.length,
    hostileBlocked: share(hostile, (o) => o !== 'stored'),
    benignRefused: share(benign, (o) => o === 'rejected'),
    benignQuarantined: share(benign, (o) => o === 'quarantined'),
  };
}

export function formatRates(part: string, rates: CorpusRates): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  return `${part}: ${rates.hostile} hostile, ${pct(rates.hostileBlocked)} blocked or quarantined; ${rates.benign} benign, ${pct(rates.benignRefused)} refused, ${pct(rates.benignQuarantined)} quarantined`;
}
