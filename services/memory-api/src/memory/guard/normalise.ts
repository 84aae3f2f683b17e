/**
 * Text views the poisoning guard matches on. An attacker spells an instruction so that a
 * reader (the model) still understands it while a naive pattern does not: full-width or
 * mathematical letters, zero-width and bidi characters inside words, Cyrillic/Greek
 * look-alikes, leetspeak, accents dropped or added. `canonicalView` undoes all of that and
 * counts what it had to undo, because the effort is itself evidence.
 */

export interface ObfuscationCounts {
  /** Zero-width, bidi or other invisible characters found between two letters. */
  invisibleInWords: number;
  /** Bidi overrides/isolates anywhere (they reorder what a human reviewer sees). */
  bidiControls: number;
  /** Words mixing Latin with Cyrillic/Greek letters. */
  mixedScriptWords: number;
  /** Words that only became trigger words after undoing leetspeak or I/l swaps. */
  leetWords: number;
}

export interface CanonicalView {
  /** Lower-case, NFKC, invisibles removed, accents folded, look-alikes and leetspeak undone. */
  text: string;
  /** NFKC with invisibles removed, case and accents kept (URLs, placeholders, encoded blobs). */
  original: string;
  counts: ObfuscationCounts;
}

// Soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers, Mongolian vowel
// separator, zero-width space/joiners, LRM/RLM, bidi embeddings and overrides, word joiner and
// invisible operators, bidi isolates, BOM, variation selectors.
const INVISIBLE_CLASS =
  '[\\u00AD\\u034F\\u061C\\u115F\\u1160\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\u3164\\uFEFF\\uFE00-\\uFE0F\\uFFA0]';
const INVISIBLE = new RegExp(INVISIBLE_CLASS, 'gu');
const HAS_INVISIBLE = new RegExp(INVISIBLE_CLASS, 'u');
const BIDI = /[\u202A-\u202E\u2066-\u2069]/gu;
const WORD_SCRIPT =
  /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const COMBINING = /[\u0300-\u036F]/gu;

/** Unicode "tag" characters (U+E0000 block): invisible ASCII. Flag emoji use them after U+1F3F4. */
const TAG_RUN = /[\u{E0000}-\u{E007F}]+/gu;
const BLACK_FLAG = 0x1f3f4;

export interface HiddenTagText {
  /** What the tag characters spell, outside flag emoji sequences. */
  hidden: string;
  /** The text without any tag characters. */
  visible: string;
}

/** Decodes Unicode tag characters ("ASCII smuggling"), which no reviewer sees but a model reads. */
export function extractTagText(text: string): HiddenTagText {
  if (!/[\u{E0000}-\u{E007F}]/u.test(text)) return { hidden: '', visible: text };
  let hidden = '';
  const visible = text.replace(TAG_RUN, (run: string, offset: number) => {
    const isFlag = text.codePointAt(offset - 2) === BLACK_FLAG && run.endsWith('\u{E007F}');
    if (!isFlag) {
      for (const char of run) {
        const code = (char.codePointAt(0) as number) - 0xe0000;
        if (code >= 0x20 && code < 0x7f) hidden += String.fromCharCode(code);
      }
      hidden += ' ';
    }
    return '';
  });
  return { hidden: hidden.trim(), visible };
}

/** Removes invisible characters, counting those that split a word (and bidi controls). */
function stripInvisible(text: string, counts: ObfuscationCounts): string {
  if (!HAS_INVISIBLE.test(text)) return text;
  counts.bidiControls += (text.match(BIDI) ?? []).length;
  return text.replace(INVISIBLE, (char: string, offset: number) => {
    // ZWJ/ZWNJ belong to emoji sequences and to Persian/Indic spelling: only count invisibles
    // that split Latin, Cyrillic, Greek or CJK letters.
    if (WORD_SCRIPT.test(text[offset - 1] ?? '') && WORD_SCRIPT.test(text[offset + char.length] ?? '')) {
      counts.invisibleInWords += 1;
    }
    return '';
  });
}

/** Cyrillic and Greek letters a reader takes for Latin ones (case matters: Υ reads Y, υ reads u). */
const TO_LATIN: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  п: 'n',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ь: 'b',
  А: 'A',
  В: 'B',
  Е: 'E',
  Ё: 'E',
  І: 'I',
  Ї: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ѕ: 'S',
  Һ: 'H',
  Ԁ: 'D',
  Ԛ: 'Q',
  Ԝ: 'W',
  Ӏ: 'I',
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  ζ: 'z',
  η: 'n',
  ι: 'i',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ϲ: 'c',
  ϳ: 'j',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  Ϲ: 'C',
  // Latin-script look-alikes outside ASCII (IPA, small capitals, dotless i) and Armenian.
  ı: 'i',
  ɩ: 'i',
  ɪ: 'i',
  ɑ: 'a',
  ɡ: 'g',
  ɢ: 'g',
  ʏ: 'y',
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ʜ: 'h',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ᴢ: 'z',
  օ: 'o',
  ս: 'u',
  ո: 'n',
  հ: 'h',
  ց: 'g',
  զ: 'q',
};
/** Latin letters a reader takes for Cyrillic ones, for Russian words salted with Latin. */
const TO_CYRILLIC: Record<string, string> = {
  a: 'а',
  c: 'с',
  e: 'е',
  o: 'о',
  p: 'р',
  x: 'х',
  y: 'у',
  k: 'к',
  A: 'А',
  B: 'В',
  C: 'С',
  E: 'Е',
  H: 'Н',
  K: 'К',
  M: 'М',
  O: 'О',
  P: 'Р',
  T: 'Т',
  X: 'Х',
  Y: 'У',
};
const LATIN_ONLY_LOOKALIKES = /[ıɩɪɑɡɢʏᴀʙᴄᴅᴇʜᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡᴢօսոհցզ]/u;
const CYRILLIC_OR_GREEK = /[\u0370-\u04FF]/u;

const LEET_CHARS = /[0-9@$|!]/;
const LEET: Record<string, string> = {
  '0': 'o',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
};

const CJK_CHAR = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]';
/** Spaces or tabs between two CJK characters ("忽 略 之 前"); CJK text needs none. */
const CJK_SPACING = new RegExp(`(?<=${CJK_CHAR})[^\\S\\n]+(?=${CJK_CHAR})`, 'gu');

/**
 * Rewrites every word to what a reader sees, and counts what needed rewriting.
 * `triggerWords` are the words patterns look for: leetspeak is only undone when that yields
 * one of them, so "mp3" or "4k" stay as they are.
 */
export function canonicalView(input: string, triggerWords: ReadonlySet<string>): CanonicalView {
  const counts: ObfuscationCounts = { invisibleInWords: 0, bidiControls: 0, mixedScriptWords: 0, leetWords: 0 };
  const original = stripInvisible(input.normalize('NFKC'), counts);
  const ascii = !NON_ASCII.test(original);
  // Look-alikes are resolved before lower-casing: case tells Υ (Y) from υ (u).
  let text = '';
  let last = 0;
  WORD.lastIndex = 0;
  for (let match = WORD.exec(original); match; match = WORD.exec(original)) {
    const word = match[0];
    if (ascii) {
      text += original.slice(last, match.index).toLowerCase() + undoLeet(word.toLowerCase(), triggerWords, counts);
    } else {
      const seen = lowerFolded(resolveLookalikes(word, triggerWords, counts));
      text += lowerFolded(original.slice(last, match.index)) + undoLeet(seen, triggerWords, counts);
    }
    last = match.index + word.length;
  }
  text += lowerFolded(original.slice(last));
  return { text: ascii ? text : text.replace(CJK_SPACING, ''), original, counts };
}

const NON_ASCII = /[\u0080-\u{10FFFF}]/u;

function lowerFolded(text: string): string {
  return foldAccents(text.toLowerCase());
}

// A word: letters, digits and the symbols leetspeak writes letters with ("1gn0r3", "$ecret", "ru|es").
const WORD = /[\p{L}\p{M}\p{N}@$|!]*[\p{L}\p{N}][\p{L}\p{M}\p{N}@$|!]*/gu;

function foldAccents(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  // Recompose afterwards so kana keep their voicing marks (those are not in U+0300–036F).
  return text.normalize('NFD').replace(COMBINING, '').normalize('NFC');
}

function resolveLookalikes(word: string, triggerWords: ReadonlySet<string>, counts: ObfuscationCounts): string {
  let latin = 0;
  let cyrillic = 0;
  let greek = 0;
  for (const char of word) {
    if ((char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z')) latin += 1;
    else if (char >= '\u0400' && char <= '\u04FF') cyrillic += 1;
    else if (char >= '\u0370' && char <= '\u03FF') greek += 1;
  }
  if (LATIN_ONLY_LOOKALIKES.test(word)) return mapChars(word, TO_LATIN);
  if (cyrillic + greek === 0) return word;
  const readsAsLatin = [...word].every((c) => !CYRILLIC_OR_GREEK.test(c) || TO_LATIN[c] !== undefined);
  if (latin === 0) {
    // A word all in look-alikes: Cyrillic and Greek together, or spelling one of the trigger words.
    const asLatin = readsAsLatin ? mapChars(word, TO_LATIN) : '';
    if (readsAsLatin && ((cyrillic > 0 && greek > 0) || triggerWords.has(asLatin.toLowerCase()))) {
      counts.mixedScriptWords += 1;
      return asLatin;
    }
    return word;
  }
  counts.mixedScriptWords += 1;
  // Mixed word: read it in the script every letter can be read in, Latin first.
  if (readsAsLatin) return mapChars(word, TO_LATIN);
  if (greek === 0 && [...word].every((c) => !/[A-Za-z]/.test(c) || TO_CYRILLIC[c] !== undefined)) {
    return mapChars(word, TO_CYRILLIC);
  }
  return word;
}

function mapChars(word: string, table: Record<string, string>): string {
  let out = '';
  for (const char of word) out += table[char] ?? char;
  return out;
}

function undoLeet(word: string, triggerWords: ReadonlySet<string>, counts: ObfuscationCounts): string {
  // Digits and symbols for letters ("1gn0r3"), or l for a capital I ("lgnore"); two-character
  // codes ("a5", "b4", "m3") are paper sizes and grades, not leetspeak.
  if ((word[0] !== 'l' && !LEET_CHARS.test(word)) || word.length < 3) return word;
  if (triggerWords.has(word) || !/[a-z]/.test(word)) return word;
  const base = mapChars(word, LEET).replace(/!(?=[a-z])/g, 'i');
  for (const candidate of [base.replace(/[1|]/g, 'i'), base.replace(/[1|]/g, 'l'), base.replace(/[1|l]/g, 'i')]) {
    if (candidate !== word && triggerWords.has(candidate)) {
      counts.leetWords += 1;
      return candidate;
    }
  }
  return word;
}

/** Letters only (the canonical text without spaces, punctuation or digits): words split apart. */
export function compactLetters(text: string): string {
  return text.replace(/[^\p{L}]+/gu, '');
}

export function rot13(text: string): string {
  return text.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));
}
