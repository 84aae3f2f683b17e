import type { SearchHit } from '@hindsight/memory-model';
import { estimateTokens } from '@hindsight/text';

/** Most of the profile share the summary may take. */
const SUMMARY_SHARE = 0.6;

export interface ProfileSection {
  /** Prompt text; empty when there is nothing to say. */
  text: string;
  /** The preferences that made it into the text. */
  used: SearchHit[];
}

/**
 * The user's profile for the system prompt: the summary consolidation keeps, then the
 * highest-ranked preferences, never more than `capTokens` (DESIGN §7: 15 % of the context).
 * The summary is cut at a sentence or word boundary when it would take more than its share.
 */
export function buildProfileSection(
  summary: string | null,
  preferences: readonly SearchHit[],
  capTokens: number,
): ProfileSection {
  const lines: string[] = [];
  let spent = 0;
  const fits = (line: string) => spent + estimateTokens(line) + 1 <= capTokens;
  const add = (line: string) => {
    lines.push(line);
    spent += estimateTokens(line) + 1;
  };

  if (summary?.trim()) {
    const line = `Profile: ${summary.replace(/\s+/g, ' ').trim()}`;
    // A long summary leaves room for the top preferences, which are what most answers hinge on.
    const summaryCap = Math.floor(capTokens * SUMMARY_SHARE);
    if (estimateTokens(line) + 1 <= summaryCap) add(line);
    else {
      const cut = cutToTokens(line, summaryCap - 1);
      if (cut) add(cut);
    }
  }
  const used: SearchHit[] = [];
  const seen = new Set<string>();
  for (const hit of preferences) {
    const key = hit.content.trim().toLowerCase();
    if (seen.has(key)) continue;
    const line = `- ${hit.category}: ${hit.content.replace(/\s+/g, ' ').trim()}`;
    if (!fits(line)) continue;
    seen.add(key);
    add(line);
    used.push(hit);
  }
  return { text: lines.join('\n'), used };
}

/** The longest prefix (ending at a sentence or word boundary, marked with …) within `tokens`. */
function cutToTokens(text: string, tokens: number): string {
  if (tokens <= 1) return '';
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(`${text.slice(0, mid)}…`) <= tokens) low = mid;
    else high = mid - 1;
  }
  const prefix = text.slice(0, low);
  const sentence = Math.max(prefix.lastIndexOf('. '), prefix.lastIndexOf('。'));
  const word = prefix.lastIndexOf(' ');
  const boundary = sentence > prefix.length / 2 ? sentence : word;
  const kept = boundary > prefix.length / 2 ? prefix.slice(0, boundary + 1).trimEnd() : prefix;
  return kept ? `${kept}…` : '';
}
