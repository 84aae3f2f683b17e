/**
 * English stemmer following the Snowball "english" (Porter2) algorithm, written compactly.
 * Porter2 rather than the 1980 Porter algorithm because it handles -ies/-ied, -ly and
 * exceptional words (news, skies, dying) better; a stem only has to be consistent, so small
 * deviations from the reference stemmer never break matching as long as one function is used.
 */
// Plain loops and character tests, no regular expressions or closures per call: the keyword
// index stems every word it stores and every query, so this function is on the hot path.
const VOWELS = 'aeiouy';
const DOUBLES = ['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt'];
const LI_ENDINGS = 'cdeghkmnrt';
const EEDS = ['eedly', 'eed'];
const EDS = ['ingly', 'edly', 'ing', 'ed'];
const POSSESSIVES = ["'s'", "'s", "'"];

const EXCEPTIONS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    skis: 'ski',
    skies: 'sky',
    dying: 'die',
    lying: 'lie',
    tying: 'tie',
    idly: 'idl',
    gently: 'gentl',
    ugly: 'ugli',
    early: 'earli',
    only: 'onli',
    singly: 'singl',
    sky: 'sky',
    news: 'news',
    howe: 'howe',
    atlas: 'atlas',
    cosmos: 'cosmos',
    bias: 'bias',
    andes: 'andes',
  }),
);
const AFTER_STEP_1A = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ['ization', 'ize'],
  ['ational', 'ate'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['tional', 'tion'],
  ['biliti', 'ble'],
  ['lessli', 'less'],
  ['entli', 'ent'],
  ['ation', 'ate'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['ousli', 'ous'],
  ['iviti', 'ive'],
  ['fulli', 'ful'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['abli', 'able'],
  ['izer', 'ize'],
  ['ator', 'ate'],
  ['alli', 'al'],
  ['bli', 'ble'],
  ['ogi', 'og'],
  ['li', ''],
];
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['alize', 'al'],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ative', ''],
  ['ical', 'ic'],
  ['ness', ''],
  ['ful', ''],
];
const STEP4 = [
  'ement',
  'ance',
  'ence',
  'able',
  'ible',
  'ment',
  'ant',
  'ent',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
  'ion',
  'al',
  'er',
  'ic',
];

type SuffixTable = ReadonlyMap<string, ReadonlyArray<readonly [string, string]>>;

/** Groups suffix rules by last letter, longest first, so a lookup tests only a few candidates. */
function suffixTable(rules: ReadonlyArray<readonly [string, string]>): SuffixTable {
  const table = new Map<string, Array<readonly [string, string]>>();
  for (const rule of [...rules].sort((a, b) => b[0].length - a[0].length)) {
    const last = rule[0][rule[0].length - 1] as string;
    table.set(last, [...(table.get(last) ?? []), rule]);
  }
  return table;
}

function longestSuffix(word: string, table: SuffixTable): readonly [string, string] | undefined {
  const candidates = table.get(word[word.length - 1] as string);
  if (candidates) for (const rule of candidates) if (word.endsWith(rule[0])) return rule;
  return undefined;
}

const STEP2_TABLE = suffixTable(STEP2);
const STEP3_TABLE = suffixTable(STEP3);
const STEP4_TABLE = suffixTable(STEP4.map((s) => [s, ''] as const));

function firstSuffix(word: string, suffixes: readonly string[]): string | undefined {
  for (const s of suffixes) if (word.endsWith(s)) return s;
  return undefined;
}

function isVowel(c: string | undefined): boolean {
  return c !== undefined && c !== '' && VOWELS.includes(c);
}

function hasVowelBefore(word: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (VOWELS.includes(word[i] as string)) return true;
  return false;
}

/** Start of the region after the first non-vowel that follows a vowel, from `from`. */
function regionAfter(word: string, from: number): number {
  for (let i = from + 1; i < word.length; i++) {
    if (!isVowel(word[i]) && isVowel(word[i - 1])) return i + 1;
  }
  return word.length;
}

function endsInShortSyllable(word: string): boolean {
  const n = word.length;
  if (n === 2) return isVowel(word[0]) && !isVowel(word[1]);
  const [a, b, c] = [word[n - 3], word[n - 2], word[n - 1]];
  return !isVowel(a) && isVowel(b) && !isVowel(c) && c !== 'w' && c !== 'x' && c !== 'Y';
}

/**
 * Stems of the words met so far: Porter2 was ~80 % of tokenising a memory (45-53 against 8-10 µs
 * for 145 characters), and every search tokenises its top results (`collapseRedundant`), every
 * write its content. A text's words are mostly the same few thousand, so a bounded memo of this pure
 * function, emptied when full, answers nearly all of them; words of at most MEMO_WORD_LENGTH
 * letters only, so it holds ~2 MiB at most per thread whatever the text.
 */
const STEM_CACHE_WORDS = 20_000;
const STEMS = new Map<string, string>();
const MEMO_WORD_LENGTH = 24;

/** Porter2 stem of a lower-case word; words of one or two letters are returned unchanged. */
export function stem(input: string): string {
  if (input.length > MEMO_WORD_LENGTH) return porter2(input);
  const known = STEMS.get(input);
  if (known !== undefined) return known;
  const stemmed = porter2(input);
  if (STEMS.size >= STEM_CACHE_WORDS) STEMS.clear();
  STEMS.set(input, stemmed);
  return stemmed;
}

function porter2(input: string): string {
  if (input.length <= 2) return input;
  const exception = EXCEPTIONS.get(input);
  if (exception !== undefined) return exception;

  let w = input.startsWith("'") ? input.slice(1) : input;
  if (w.startsWith('y')) w = `Y${w.slice(1)}`;
  if (w.includes('y')) w = w.replace(/([aeiouy])y/g, '$1Y');

  const r1 = /^(gener|commun|arsen)/.exec(w)?.[0].length ?? regionAfter(w, 0);
  const r2 = regionAfter(w, r1);

  // Step 0: possessives.
  for (const s of POSSESSIVES) {
    if (w.endsWith(s)) {
      w = w.slice(0, -s.length);
      break;
    }
  }

  // Step 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ied') || w.endsWith('ies')) w = w.length > 4 ? w.slice(0, -2) : w.slice(0, -1);
  else if (w.endsWith('us') || w.endsWith('ss')) {
    // unchanged
  } else if (w.endsWith('s') && hasVowelBefore(w, w.length - 2)) w = w.slice(0, -1);
  if (AFTER_STEP_1A.has(w)) return w;

  // Step 1b: -ed, -ing and their -ly forms.
  const eed = firstSuffix(w, EEDS);
  const ed = firstSuffix(w, EDS);
  if (eed !== undefined) {
    if (w.length - eed.length >= r1) w = `${w.slice(0, -eed.length)}ee`;
  } else if (ed !== undefined && hasVowelBefore(w, w.length - ed.length)) {
    w = w.slice(0, -ed.length);
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (firstSuffix(w, DOUBLES) !== undefined) w = w.slice(0, -1);
    else if (r1 >= w.length && endsInShortSyllable(w)) w += 'e';
  }

  // Step 1c: y → i after a consonant that is not the first letter.
  const last = w[w.length - 1];
  if (w.length > 2 && (last === 'y' || last === 'Y') && !isVowel(w[w.length - 2])) w = `${w.slice(0, -1)}i`;

  // Step 2: derivational suffixes in R1.
  const s2 = longestSuffix(w, STEP2_TABLE);
  if (s2 && w.length - s2[0].length >= r1) {
    const [s, r] = s2;
    if (s === 'ogi') {
      if (w.endsWith('logi')) w = `${w.slice(0, -3)}og`;
    } else if (s === 'li') {
      if (LI_ENDINGS.includes(w[w.length - 3] ?? '')) w = w.slice(0, -2);
    } else w = w.slice(0, -s.length) + r;
  }

  // Step 3.
  const s3 = longestSuffix(w, STEP3_TABLE);
  if (s3 && w.length - s3[0].length >= r1) {
    const [s, r] = s3;
    if (s !== 'ative' || w.length - s.length >= r2) w = w.slice(0, -s.length) + r;
  }

  // Step 4: suffixes deleted in R2.
  const s4 = longestSuffix(w, STEP4_TABLE)?.[0];
  if (s4 !== undefined && w.length - s4.length >= r2) {
    if (s4 !== 'ion' || w.endsWith('sion') || w.endsWith('tion')) w = w.slice(0, -s4.length);
  }

  // Step 5: final -e and -ll.
  if (w.endsWith('e')) {
    const stemmed = w.slice(0, -1);
    if (stemmed.length >= r2 || (stemmed.length >= r1 && !endsInShortSyllable(stemmed))) w = stemmed;
  } else if (w.endsWith('ll') && w.length - 1 >= r2) w = w.slice(0, -1);

  return w.includes('Y') ? w.replace(/Y/g, 'y') : w;
}
