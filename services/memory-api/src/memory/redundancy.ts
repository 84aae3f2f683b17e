import { keywordTokens } from '@hindsight/text';

export interface RedundancySettings {
  /** Word overlap (Jaccard) at or above which two results say the same thing: the lower one goes. */
  duplicateOverlap: number;
  /** Share of a returned memory's words a summary must hold to count as restating it. */
  restateOverlap: number;
}

export const DEFAULT_REDUNDANCY: RedundancySettings = { duplicateOverlap: 0.8, restateOverlap: 0.6 };

/** Memories that restate others: a session's episodic summary, the profile summary. */
const SUMMARY_CATEGORIES: ReadonlySet<string> = new Set(['summary', 'profile']);

interface Rankable {
  content: string;
  category: string;
}

/**
 * The best `limit` results without redundancy, in their order: a result nearly identical to a
 * better one is dropped, and a summary that restates a returned memory (its session's fact, the
 * profile line of a fact) gives way to that memory — whichever of the two ranked higher.
 */
export function collapseRedundant<T extends Rankable>(
  ranked: readonly T[],
  limit: number,
  settings: RedundancySettings,
): { kept: T[]; collapsed: number } {
  const kept: Array<{ item: T; terms: Set<string>; summary: boolean }> = [];
  let collapsed = 0;
  for (const item of ranked) {
    if (kept.length >= limit) break;
    const terms = new Set(keywordTokens(item.content));
    const summary = SUMMARY_CATEGORIES.has(item.category);
    if (kept.some((k) => overlap(terms, k.terms) >= settings.duplicateOverlap)) {
      collapsed += 1;
      continue;
    }
    if (summary && kept.some((k) => !k.summary && containment(k.terms, terms) >= settings.restateOverlap)) {
      collapsed += 1;
      continue;
    }
    if (!summary) {
      for (let i = kept.length - 1; i >= 0; i--) {
        const other = kept[i] as (typeof kept)[number];
        if (other.summary && containment(terms, other.terms) >= settings.restateOverlap) {
          kept.splice(i, 1);
          collapsed += 1;
        }
      }
    }
    kept.push({ item, terms, summary });
  }
  return { kept: kept.map((k) => k.item), collapsed };
}

/** Jaccard overlap of two term sets. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Share of `part`'s terms that `whole` holds. */
function containment(part: ReadonlySet<string>, whole: ReadonlySet<string>): number {
  if (part.size === 0) return 0;
  let shared = 0;
  for (const term of part) if (whole.has(term)) shared++;
  return shared / part.size;
}
