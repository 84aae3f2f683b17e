/**
 * Text analysis shared by the keyword index (FTS5 / sparse vectors), the BM25
 * baseline and the built-in embedder, so every part agrees on what a "term" is.
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}]+/gu;

const STOP_WORDS = new Set(
  'a an and are as at be been but by do does did for from had has have he her him his i if in into is it its me my of on or our she so than that the their them then there these they this to was we were what when where which who will with you your'.split(
    ' ',
  ),
);

function stem(word: string): string {
  if (word.length <= 3) return word;
  for (const [suffix, replacement] of [
    ['ies', 'y'],
    ['sses', 'ss'],
    ['ing', ''],
    ['ed', ''],
    ['es', ''],
    ['s', ''],
  ] as const) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length) + replacement;
  }
  return word;
}

/** Lower-cased, stemmed terms without stop words; CJK runs become character unigrams and bigrams. */
export function keywordTokens(text: string): string[] {
  const out: string[] = [];
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    const run = match[0];
    if (CJK.test(run)) {
      const chars = [...run].filter((c) => CJK.test(c));
      for (let i = 0; i < chars.length; i++) {
        out.push(chars[i] as string);
        if (i + 1 < chars.length) out.push(`${chars[i]}${chars[i + 1]}`);
      }
      const latin = run.replace(new RegExp(CJK.source, 'gu'), ' ').trim();
      for (const w of latin.split(/\s+/)) if (w && !STOP_WORDS.has(w)) out.push(stem(w));
    } else if (!STOP_WORDS.has(run)) {
      out.push(stem(run));
    }
  }
  return out;
}

/** Rough token count for budgeting prompt context: ~4 chars per token for Latin text, 1 per CJK character. */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const c of text) if (CJK.test(c)) cjk++;
  return cjk + Math.ceil((text.length - cjk) / 4);
}
