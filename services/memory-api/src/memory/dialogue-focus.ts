import type { MemoryRecord } from '@hindsight/memory-model';
import { isSessionTurn } from './session-turns.ts';

/**
 * What a question says about the conversation turns that answer it, beyond its words: whose turn
 * it is ("What did Kevin cook…" is answered by Kevin's turns, not by the turns addressed to him)
 * and on which day it was said ("…on 21.01.2024"). Read-path only and bounded to the candidates
 * already found: a turn of the named speaker, or of the named day, keeps its relevance; the other
 * turns lose a share of it. Memories that are not turns are never touched.
 */
export interface DialogueFocusWeights {
  /** Share of relevance a turn of another speaker loses when the question names one speaker. */
  speakerMismatch: number;
  /** Share of relevance a turn loses when the question names a day and the turn was said on none near it. */
  dateMismatch: number;
}

export const DEFAULT_DIALOGUE_FOCUS: DialogueFocusWeights = { speakerMismatch: 0.5, dateMismatch: 0.5 };

type Turn = Pick<MemoryRecord, 'layer' | 'session_id' | 'category' | 'content' | 'metadata' | 'occurred_at'>;

/** Relevance multiplier (0..1) of each candidate turn for one question. */
export type DialogueFocus = (turn: Turn) => number;

const DAY_MS = 86_400_000;
/** A turn counts for a named day when said on it or in the two days after ("yesterday I…"). */
const DAYS_AFTER = 3;
/** A leading "Name:" of a transcript line: one to three words, no sentence. */
const SPEAKER_PREFIX = /^\s*([\p{L}][\p{L}\p{M}'’.-]*(?:\s[\p{L}][\p{L}\p{M}'’.-]*){0,2})\s?:\s/u;
const MAX_SPEAKER_LENGTH = 64;

/** The speaker of a conversation turn: `metadata.speaker`, or the transcript prefix of its content. */
export function turnSpeaker(turn: Pick<Turn, 'content' | 'metadata'>): string | undefined {
  const declared = turn.metadata.speaker;
  const name = typeof declared === 'string' ? declared : SPEAKER_PREFIX.exec(turn.content)?.[1];
  const trimmed = name?.trim();
  return trimmed && trimmed.length <= MAX_SPEAKER_LENGTH ? trimmed.toLowerCase() : undefined;
}

/**
 * The focus of `query` over these candidates: which of their speakers it names (exactly one, or
 * no speaker focus) and which calendar days it names. `undefined` when it names neither.
 */
export function dialogueFocus(
  query: string,
  candidates: readonly Turn[],
  weights: DialogueFocusWeights = DEFAULT_DIALOGUE_FOCUS,
): DialogueFocus | undefined {
  const turns = candidates.filter(isSessionTurn);
  if (turns.length === 0) return undefined;
  const words = queryWords(query);
  const speakers = new Set(turns.map(turnSpeaker).filter((s): s is string => s !== undefined));
  const named = [...speakers].filter((speaker) => names(speaker, query, words));
  const speaker = named.length === 1 && speakers.size > 1 ? named[0] : undefined;
  const days = namedDays(query);
  if (speaker === undefined && days.length === 0) return undefined;
  return (turn) => {
    if (!isSessionTurn(turn)) return 1;
    let factor = 1;
    if (speaker !== undefined && turnSpeaker(turn) !== speaker) factor *= 1 - weights.speakerMismatch;
    if (days.length > 0) {
      const at = Date.parse(turn.occurred_at);
      if (!days.some((day) => at >= day && at < day + DAYS_AFTER * DAY_MS)) factor *= 1 - weights.dateMismatch;
    }
    return factor;
  };
}

function queryWords(query: string): Set<string> {
  return new Set(query.toLowerCase().match(/[\p{L}\p{M}]+/gu) ?? []);
}

/**
 * Whether the query names this speaker: one of the name's words, as written or spelled alike
 * ("Muhammad" for Muhhamed, "Aqib" for Akib); a name in a script without spaces as a substring.
 */
function names(speaker: string, query: string, words: ReadonlySet<string>): boolean {
  const parts = speaker.match(/[\p{L}\p{M}]+/gu) ?? [];
  if (parts.length === 1 && /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(speaker))
    return query.includes(speaker);
  for (const part of parts) {
    if (part.length < 2) continue;
    if (words.has(part)) return true;
    const shape = spellingShape(part);
    if (shape.length < 3) continue;
    for (const word of words) if (word[0] === part[0] && spellingShape(word) === shape) return true;
  }
  return false;
}

/** A name's consonant skeleton: doubled letters once, its first letter, then no vowels (c/q as k). */
function spellingShape(word: string): string {
  const letters = word
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[cq]/g, 'k')
    .replace(/(.)\1+/g, '$1');
  return letters.slice(0, 1) + letters.slice(1).replace(/[aeiouy]/g, '');
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
/** Before/after/since a date is a range, not the day: no focus on it. */
const RANGE_WORD = /\b(?:before|after|since|until|till|prior to|by)\s+(?:the\s+)?$/i;
const DATE_FORMS: ReadonlyArray<{ pattern: RegExp; read: (m: RegExpMatchArray) => [number, number, number] }> = [
  // 2024-01-21
  { pattern: /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, read: (m) => [Number(m[1]), Number(m[2]), Number(m[3])] },
  // 21.01.2024, 21/01/2024 (day first, unless that cannot be)
  {
    pattern: /\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b/g,
    read: (m) => {
      const [a, b] = [Number(m[1]), Number(m[2])];
      return b > 12 && a <= 12 ? [Number(m[3]), a, b] : [Number(m[3]), b, a];
    },
  },
  // 21 January 2024, 21st of Jan, 2024
  {
    pattern: new RegExp(`\\b${DAY}(?:\\s+of)?\\s+${MONTH},?\\s+(\\d{4})\\b`, 'gi'),
    read: (m) => [Number(m[3]), monthNumber(m[2]), Number(m[1])],
  },
  // January 21, 2024
  {
    pattern: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+(\\d{4})\\b`, 'gi'),
    read: (m) => [Number(m[3]), monthNumber(m[1]), Number(m[2])],
  },
];

/** The UTC starts of the calendar days a question names ("on 21.01.2024", "on 3 Jan 2024"). */
export function namedDays(query: string): number[] {
  const days = new Set<number>();
  for (const { pattern, read } of DATE_FORMS) {
    for (const match of query.matchAll(pattern)) {
      if (RANGE_WORD.test(query.slice(0, match.index))) continue;
      const [year, month, day] = read(match);
      const start = Date.UTC(year, month - 1, day);
      const date = new Date(start);
      if (date.getUTCMonth() === month - 1 && date.getUTCDate() === day) days.add(start);
    }
  }
  return [...days];
}

function monthNumber(name: string | undefined): number {
  return MONTHS.indexOf((name ?? '').slice(0, 3).toLowerCase()) + 1;
}
