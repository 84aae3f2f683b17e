import { type Anchors, anchorsOf } from './anchors.ts';

/**
 * Building blocks of the guard's patterns. Patterns match the canonical view (lower case,
 * accents folded, look-alikes undone), so they are written in lower case without accents;
 * `pattern` folds whatever accents a source still has the same way the text is folded.
 */

/** The families of evidence, each named for what the text tries to do. */
export type SignalFamily =
  | 'override'
  | 'new-instructions'
  | 'addressee'
  | 'persona'
  | 'unrestricted'
  | 'bypass'
  | 'leak'
  | 'exfiltration'
  | 'role'
  | 'template'
  | 'tool'
  | 'behaviour'
  | 'promotion'
  | 'deception'
  | 'payment'
  | 'markup'
  | 'obfuscation'
  | 'encoded';

export interface SignalPattern {
  family: SignalFamily;
  /** Evidence this match contributes (see the thresholds in instructions.ts). */
  weight: number;
  pattern: RegExp;
  /** Extra weight when the match's sentence also contains this (e.g. "previous" with an override). */
  boosts?: ReadonlyArray<readonly [RegExp, number]>;
  /** Extra weight when the sentence talks to or about an AI model. */
  aiContext?: number;
  /** Words one of which any match contains: without them the pattern is not run. */
  anchors?: Anchors;
  /** The script the pattern's words are written in: without it the pattern is not run. */
  script?: RegExp;
}

export interface SignalOptions {
  boosts?: SignalPattern['boosts'];
  aiContext?: number;
  /** The alternatives (as passed to `words`) one of which every match contains. */
  anchorOn?: readonly string[];
  script?: RegExp;
}

const WORD_CHAR = '\\p{L}\\p{N}';
/** What separates words inside one sentence (not a sentence end). */
export const SEP = '[\\s"\'“”«»‘’„()\\[\\],:;*_~\\-—–?+|/\\\\^$]+';
const TOKEN = '[^\\s.!?。！？"\'“”«»‘’„()\\[\\],:;*_~\\-—–+|/\\\\^$]+';

/** Up to `n` words between two parts of a phrase, inside one sentence. */
export function gap(n: number): string {
  return `(?:${SEP}${TOKEN}){0,${n}}${SEP}`;
}

/** Whole words: one of the alternatives, not inside a longer word. */
export function words(...alternatives: string[]): string {
  return `(?<![${WORD_CHAR}])(?:${alternatives.join('|')})(?![${WORD_CHAR}])`;
}

/** A global, unicode pattern over the canonical view. */
export function pattern(source: string): RegExp {
  return new RegExp(foldSource(source), 'gu');
}

/** One alternation of a word list, for building patterns. */
export function oneOf(list: readonly string[]): string {
  return list.join('|');
}

/** Folds a pattern source like the canonical text (NFKC, accents dropped). */
export function foldSource(source: string): string {
  return source
    .normalize('NFKC')
    .normalize('NFD')
    .replace(/[\u0300-\u036F]/g, '')
    .normalize('NFC');
}

export function signal(
  family: SignalFamily,
  weight: number,
  source: string,
  options: SignalOptions = {},
): SignalPattern {
  const { anchorOn, ...rest } = options;
  const anchors = anchorOn ? anchorsOf(anchorOn.map(foldSource)) : undefined;
  return { family, weight, pattern: pattern(source), ...rest, ...(anchors ? { anchors } : {}) };
}

export const SCRIPTS = {
  cjk: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u,
  cyrillic: /\p{Script=Cyrillic}/u,
  arabic: /\p{Script=Arabic}/u,
  devanagari: /\p{Script=Devanagari}/u,
} as const;

/**
 * Every match of a global pattern. `String.prototype.matchAll` clones the pattern on each call,
 * which for these large unicode patterns costs far more than the matching itself.
 */
export function* matchesOf(global: RegExp, text: string): Generator<RegExpExecArray> {
  global.lastIndex = 0;
  let match = global.exec(text);
  while (match) {
    yield match;
    if (match[0].length === 0) global.lastIndex += 1;
    match = global.exec(text);
  }
}

export function boost(source: string, weight: number): readonly [RegExp, number] {
  return [new RegExp(foldSource(source), 'u'), weight] as const;
}
