import { stem } from './stem.ts';
import { CJK_STOP_CHARS, ENGLISH_STOP_WORDS } from './stop-words.ts';

/**
 * One analysed token. `term` is what indexes and embedders match on (stemmed, normalised);
 * `surface` is the lower-cased form as written (for character n-grams of misspellings).
 */
export interface TextToken {
  term: string;
  surface: string;
  kind: 'word' | 'number' | 'cjk-char' | 'cjk-bigram';
  /** Function words and CJK particles: no topical weight. */
  stop: boolean;
}

const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
// Scripts without spaces are matched as their own runs so "iPhone手机" splits into a word and a
// CJK run. The v flag (set subtraction) keeps letters of those scripts out of the word class.
const TOKEN = new RegExp(
  `([${CJK_CLASS}]+)|(\\d+(?:[.,]\\d+)*(?:st|nd|rd|th)?)|((?:[[\\p{L}\\p{M}\\p{N}]--[${CJK_CLASS}]])+(?:['’](?:[[\\p{L}\\p{M}]--[${CJK_CLASS}]])+)*)`,
  'gv',
);

const NUMBER_WORDS: ReadonlyMap<string, string> = new Map(
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'
    .split(' ')
    .map((w, i): readonly [string, string] => [w, String(i)])
    .concat([
      ['thirty', '30'],
      ['forty', '40'],
      ['fifty', '50'],
      ['sixty', '60'],
      ['seventy', '70'],
      ['eighty', '80'],
      ['ninety', '90'],
      ['hundred', '100'],
      ['thousand', '1000'],
      ['first', '1'],
      ['second', '2'],
      ['third', '3'],
      ['fourth', '4'],
      ['fifth', '5'],
      ['tenth', '10'],
    ]),
);

/**
 * Abbreviated and full month/weekday names share one unstemmed term, so "Jan 5" finds
 * "January 5th" (the stemmer alone would turn "january" into "januari" and leave "jan").
 * "May" is left out: as a modal verb it is far more common, and a stop word.
 */
const CALENDAR_WORDS: ReadonlyMap<string, string> = new Map(
  [
    'january jan',
    'february feb',
    'march mar',
    'april apr',
    'june jun',
    'july jul',
    'august aug',
    'september sep sept',
    'october oct',
    'november nov',
    'december dec',
    'monday mon',
    'tuesday tue tues',
    'wednesday wed',
    'thursday thu thur thurs',
    'friday fri',
    'saturday sat',
    'sunday sun',
  ].flatMap((line) => {
    const [full, ...short] = line.split(' ') as [string, ...string[]];
    return [full, ...short].map((w): readonly [string, string] => [w, full]);
  }),
);
const NEGATED_BASES: ReadonlyMap<string, string> = new Map([
  ['ca', 'can'],
  ['wo', 'will'],
  ['sha', 'shall'],
]);

/**
 * Splits text into terms: NFKC, lower case, contractions split ("don't" → do + not), possessives
 * dropped, Porter2 stems, number words and ordinals as digits ("twenty" → 20, "3rd" → 3),
 * thousands separators removed ("1,000" → 1000), CJK runs as characters plus character bigrams.
 */
export function analyzeText(text: string): TextToken[] {
  const out: TextToken[] = [];
  const normalised = text.normalize('NFKC').toLowerCase();
  // A fresh RegExp per call: `lastIndex` is per-object state and the module must stay reentrant.
  const pattern = new RegExp(TOKEN);
  for (let match = pattern.exec(normalised); match !== null; match = pattern.exec(normalised)) {
    if (match[1] !== undefined) pushCjk(match[1], out);
    else if (match[2] !== undefined) pushNumber(match[2], out);
    else if (match[3] !== undefined) pushWord(match[3], out);
  }
  return out;
}

function pushCjk(run: string, out: TextToken[]): void {
  const chars = [...run];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    out.push({ term: c, surface: c, kind: 'cjk-char', stop: CJK_STOP_CHARS.has(c) });
    if (i + 1 < chars.length) {
      const bigram = c + (chars[i + 1] as string);
      out.push({ term: bigram, surface: bigram, kind: 'cjk-bigram', stop: false });
    }
  }
}

function pushNumber(written: string, out: TextToken[]): void {
  // "3rd" → 3; "1,000" and "1,000,000" are thousands; "3,5" and "3.5" stay decimals.
  const raw = written.replace(/(st|nd|rd|th)$/, '');
  const term = /^\d{1,3}(,\d{3})+$/.test(raw) ? raw.replace(/,/g, '') : raw.replace(',', '.');
  out.push({ term, surface: written, kind: 'number', stop: false });
}

function pushWord(raw: string, out: TextToken[]): void {
  const word = raw.replace(/’/g, "'");
  const apostrophe = word.indexOf("'");
  if (apostrophe > 0) {
    if (word.endsWith("n't")) {
      const base = word.slice(0, -3);
      pushPlainWord(NEGATED_BASES.get(base) ?? base, out);
      pushPlainWord('not', out);
    } else {
      // "kate's" → kate, "i'm" → i, "we'll" → we: the clitic adds nothing topical.
      pushPlainWord(word.slice(0, apostrophe), out);
    }
    return;
  }
  pushPlainWord(word, out);
}

function pushPlainWord(word: string, out: TextToken[]): void {
  if (word === '') return;
  const number = NUMBER_WORDS.get(word);
  if (number !== undefined) {
    out.push({ term: number, surface: word, kind: 'number', stop: false });
    return;
  }
  if (ENGLISH_STOP_WORDS.has(word)) {
    out.push({ term: word, surface: word, kind: 'word', stop: true });
    return;
  }
  const calendar = CALENDAR_WORDS.get(word);
  out.push({ term: calendar ?? stem(word), surface: word, kind: 'word', stop: false });
}
