/**
 * Cheap gates in front of the guard's patterns. Running ~200 large unicode patterns over every
 * write costs ~0.5 µs each; most cannot match because a word they need is absent. A pattern's
 * anchors are words (or word stems) of which at least one must occur for it to match: the text's
 * words are indexed once, and a pattern runs only when an anchor is present.
 */

export interface Anchors {
  /** Whole words. */
  words: ReadonlySet<string>;
  /** Word beginnings (from `\p{L}*` stems). */
  stems: readonly string[];
}

/**
 * Which of a fixed list of patterns a text can match, by their anchors: the text's words are
 * looked up (whole, and each beginning for stems), so the cost follows the text, not the
 * number of patterns. Patterns without anchors are always admitted.
 */
export class AnchorIndex {
  private readonly byWord = new Map<string, number[]>();
  /** Stems by their first two letters, so a word is compared with few of them. */
  private readonly stemsByStart = new Map<string, Array<readonly [string, number]>>();
  private readonly always: number[] = [];

  constructor(anchors: ReadonlyArray<Anchors | undefined>) {
    anchors.forEach((entry, position) => {
      if (!entry) {
        this.always.push(position);
        return;
      }
      for (const word of entry.words) push(this.byWord, word, position);
      for (const stem of entry.stems) {
        const bucket = this.stemsByStart.get(stem.slice(0, 2)) ?? [];
        bucket.push([stem, position]);
        this.stemsByStart.set(stem.slice(0, 2), bucket);
      }
    });
  }

  /** For each pattern (by position), whether the text (given as its distinct words) contains one of its anchors. */
  admitted(words: ReadonlySet<string>): boolean[] {
    const admitted: boolean[] = [];
    for (const position of this.always) admitted[position] = true;
    for (const word of words) {
      for (const position of this.byWord.get(word) ?? []) admitted[position] = true;
      for (const [stem, position] of this.stemsByStart.get(word.slice(0, 2)) ?? []) {
        if (word.startsWith(stem)) admitted[position] = true;
      }
    }
    return admitted;
  }
}

/** The distinct words of a text, as anchors and word lists see them. */
export function wordsOf(text: string): Set<string> {
  return new Set(text.match(/[\p{L}\p{N}]+/gu) ?? []);
}

function push(map: Map<string, number[]>, key: string, position: number): void {
  const list = map.get(key);
  if (list) list.push(position);
  else map.set(key, [position]);
}

/**
 * Anchors from the alternatives a pattern is built of: the first word of each spelling an
 * alternative can take. Returns undefined when some alternative is too irregular to spell out
 * (the pattern then always runs), so a gate can never hide a match.
 */
export function anchorsOf(alternatives: readonly string[]): Anchors | undefined {
  const words = new Set<string>();
  const stems: string[] = [];
  for (const alternative of alternatives) {
    const spellings = spell(stripLookbehinds(alternative));
    if (!spellings) return undefined;
    for (const { text, open } of spellings) {
      const first = /^[\p{L}\p{N}]+/u.exec(text)?.[0];
      if (!first) return undefined;
      if (open && first === text) stems.push(first);
      else words.add(first);
    }
  }
  return { words, stems };
}

function stripLookbehinds(source: string): string {
  let rest = source;
  while (rest.startsWith('(?<!') || rest.startsWith('(?<=')) {
    const end = closingParen(rest, 0);
    if (end < 0) return rest;
    rest = rest.slice(end + 1);
  }
  return rest;
}

interface Spelling {
  text: string;
  /** Ends in a `\p{L}*`-style wildcard: `text` is a stem. */
  open: boolean;
}

const MAX_SPELLINGS = 256;

/** Every spelling of a small regex (literals, escapes, `?`, `(?:…|…)`, `[…]`, a final `\p{L}*`). */
function spell(source: string): Spelling[] | undefined {
  let spellings: Spelling[] = [{ text: '', open: false }];
  let i = 0;
  while (i < source.length) {
    let piece: Spelling[] | undefined;
    let next = i + 1;
    const char = source[i] as string;
    if (char === '\\') {
      const escaped = source[i + 1] ?? '';
      if (/^\\p\{L\}[*+]$|^\\p\{L\}\*$/u.test(source.slice(i, i + 6)) && i + 6 === source.length) {
        return spellings.map((s) => ({ text: s.text, open: true }));
      }
      if (!/[.'"\-/\\()[\]?*+|{}^$]/.test(escaped)) return undefined;
      piece = [{ text: escaped, open: false }];
      next = i + 2;
    } else if (char === '(') {
      if (!source.startsWith('(?:', i)) return undefined;
      const end = closingParen(source, i);
      if (end < 0) return undefined;
      const inner = splitTopLevel(source.slice(i + 3, end));
      piece = [];
      for (const branch of inner) {
        const spelled = spell(branch);
        if (!spelled || spelled.some((s) => s.open)) return undefined;
        piece.push(...spelled);
      }
      next = end + 1;
    } else if (char === '[') {
      const end = source.indexOf(']', i);
      const members = source.slice(i + 1, end);
      if (end < 0 || /[\\^-]/.test(members)) return undefined;
      piece = [...members].map((m) => ({ text: m, open: false }));
      next = end + 1;
    } else if ('.*+{}|^$)'.includes(char)) {
      return undefined;
    } else {
      piece = [{ text: char, open: false }];
    }
    if (source[next] === '?') {
      piece = [...piece, { text: '', open: false }];
      next += 1;
    }
    spellings = spellings.flatMap((s) => piece.map((p) => ({ text: s.text + p.text, open: false })));
    if (spellings.length > MAX_SPELLINGS) return undefined;
    i = next;
  }
  return spellings;
}

function closingParen(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') i += 1;
    else if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function splitTopLevel(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') i += 1;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === '|' && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}
