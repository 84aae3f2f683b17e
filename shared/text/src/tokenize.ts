/**
 * Text analysis shared by the keyword index (FTS5 / sparse vectors), the BM25 baseline and the
 * built-in embedder, so every part agrees on what a "term" is.
 */
import { analyzeText } from './analyze.ts';

/**
 * Bumped whenever `keywordTokens` changes its output for some text: an index built with another
 * version must be rebuilt, because documents and queries would no longer tokenise alike.
 */
export const KEYWORD_TOKENIZER_VERSION = 2;

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Lower-cased, stemmed terms without stop words; CJK runs become character unigrams and bigrams. */
export function keywordTokens(text: string): string[] {
  const out: string[] = [];
  for (const token of analyzeText(text)) if (!token.stop) out.push(token.term);
  return out;
}

/** Rough token count for budgeting prompt context: ~4 chars per token for Latin text, 1 per CJK character. */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const c of text) if (CJK_CHAR.test(c)) cjk++;
  return cjk + Math.ceil((text.length - cjk) / 4);
}
