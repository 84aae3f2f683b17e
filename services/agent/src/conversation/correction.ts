import type { MemoryType, SearchHit } from '@hindsight/memory-model';
import { spokenBy } from './answer-selection.ts';
import { CORRECTION_LEAD, LEAD_IN } from './message-kind.ts';

/**
 * A correction names what was wrong and what is right ("Actually it's Lisbon, not Berlin",
 * "my daughter is eight, not seven", "其实我住在上海，不是北京"). The agent finds the memory
 * that says the wrong thing and writes it corrected, so the next session knows the right one.
 */
export interface Correction {
  right: string;
  wrong: string;
  /** The corrected statement the right value was taken from ("I work in Shanghai" of "…, not Beijing"), when there is one. */
  clause?: string;
}

const HAN = /\p{Script=Han}/u;

/** The last words of `clause` that stand for `wrong`: a capitalised name for a name, as many words otherwise. */
function valueAtEnd(clause: string, wrong: string): string {
  if (HAN.test(wrong)) return clause.slice(-wrong.length);
  const words = clause.split(/\s+/);
  if (/^[A-Z]/.test(wrong)) {
    const names: string[] = [];
    for (let i = words.length - 1; i >= 0 && /^[A-Z]/.test(words[i] as string); i--) names.unshift(words[i] as string);
    if (names.length > 0) return names.join(' ');
  }
  return words.slice(-wrong.split(/\s+/).length).join(' ');
}

export function parseCorrection(message: string): Correction | undefined {
  const text = message
    .trim()
    .replace(LEAD_IN, '')
    .replace(CORRECTION_LEAD, '')
    .replace(/[\s.。!！]+$/u, '');
  const itIs = /^(?:it'?s|it is|it was|that'?s|that is|that was)\s+(.+?),?\s+not\s+(.+)$/i.exec(text);
  if (itIs) return { right: itIs[1] as string, wrong: itIs[2] as string };
  const notBut = /^(?:it'?s\s+|it is\s+)?not\s+(.+?),?\s+but\s+(.+)$/i.exec(text);
  if (notBut) return { right: notBut[2] as string, wrong: notBut[1] as string };
  const trailingNot = /^(.+?),\s*not\s+(.+)$/i.exec(text) ?? /^(.+?)[，,]\s*(?:而)?不是(.+)$/u.exec(text);
  if (trailingNot) {
    const wrong = trailingNot[2] as string;
    const clause = trailingNot[1] as string;
    return { right: valueAtEnd(clause, wrong), wrong, clause };
  }
  const notIs = /不是(.+?)[，,]?\s*(?:而)?是(.+)$/u.exec(text);
  if (notIs) return { right: notIs[2] as string, wrong: notIs[1] as string };
  return undefined;
}

function mentions(text: string, phrase: string): boolean {
  if (HAN.test(phrase)) return text.includes(phrase);
  const escaped = phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

const SAID_PREFIX = /^\s*the user said:\s*/i;

/**
 * What stands in `clause` where `memory` has `wrong`: the text between the words the two share
 * around it. "用户在北京工作" with "我在上海工作" → "上海"; "The user's daughter is seven" with
 * "My daughter is eight" → "eight".
 */
function alignedValue(memory: string, wrong: string, clause: string): string | undefined {
  const at = memory.toLowerCase().indexOf(wrong.toLowerCase());
  if (at < 0) return undefined;
  const lowerClause = clause.toLowerCase();
  const before = memory.slice(0, at).toLowerCase();
  const after = memory.slice(at + wrong.length).toLowerCase();
  const least = HAN.test(wrong) ? 1 : 3;
  let start = -1;
  for (let length = Math.min(before.length, 12); length >= least && start < 0; length--) {
    const found = lowerClause.indexOf(before.slice(-length));
    if (found >= 0) start = found + length;
  }
  if (start < 0) return undefined;
  let end = clause.length;
  for (let length = Math.min(after.length, 12); length >= least; length--) {
    const found = lowerClause.indexOf(after.slice(0, length), start);
    if (found >= 0) {
      end = found;
      break;
    }
  }
  const value = clause.slice(start, end).trim();
  return value && value.toLowerCase() !== wrong.toLowerCase() ? value : undefined;
}

/**
 * The memory `correction` corrects, written right: the best-ranked memory the user stated
 * that says the wrong thing and not the right one (a distilled fact before a transcript turn),
 * with the wrong words replaced. Undefined when no memory says the wrong thing.
 */
export function correctedMemory(
  correction: Correction,
  memories: readonly SearchHit[],
): { content: string; memoryType: MemoryType; corrects: SearchHit; right: string; ownWords: boolean } | undefined {
  const stated = memories.filter(
    (m) =>
      spokenBy(m) !== 'assistant' &&
      m.category !== 'summary' &&
      m.category !== 'profile' &&
      mentions(m.content, correction.wrong),
  );
  const resolved = stated
    .map((m) => {
      const text = m.content.replace(SAID_PREFIX, '');
      const aligned = correction.clause ? alignedValue(text, correction.wrong, correction.clause) : undefined;
      return { memory: m, right: aligned ?? correction.right };
    })
    .filter((r) => !mentions(r.memory.content, r.right));
  const chosen = resolved.find((r) => r.memory.layer === 'semantic') ?? resolved[0];
  if (!chosen) return undefined;
  const target = chosen.memory;
  const escaped = correction.wrong.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const boundary = HAN.test(correction.wrong) ? '' : '(?<![\\p{L}\\p{N}])';
  const after = HAN.test(correction.wrong) ? '' : '(?![\\p{L}\\p{N}])';
  const content = target.content
    .replace(SAID_PREFIX, '')
    .replace(new RegExp(`${boundary}${escaped}${after}`, 'giu'), chosen.right)
    .trim();
  const memoryType: MemoryType = target.category === 'preference' ? 'preference' : 'fact';
  // A turn (this session's or the transcript's) is the user's own words: "I live in Lisbon".
  return { content, memoryType, corrects: target, right: chosen.right, ownWords: spokenBy(target) === 'user' };
}
