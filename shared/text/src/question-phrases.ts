import { keywordTokens } from './tokenize.ts';

/**
 * Questions that ask for a kind of answer with a phrase rather than a word, each read as a word
 * that names the kind (the built-in embedder's answer kinds, builtin-v5, and the keyword query).
 * Their words go: "living" in "what does she do for a living?" would otherwise meet
 * "lives" in every fact about where someone lives, and "what does her spouse do?" or "where is she
 * from?" name no kind at all (their other words are stop words).
 */
const QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  [/\b(?:do|does|did|doing)\s+for\s+(?:a\s+)?living\b/giu, ' occupation '],
  [/\bline\s+of\s+(?:work|business)\b/giu, ' occupation '],
  [/^(\s*what\s+(?:does|do|did)\s+.{1,60}?)\s+do(?:\s+(?:now|nowadays|these\s+days))?\s*[?？]*\s*$/iu, '$1 occupation'],
  [/\bwhere\s+(?:is|are|was|were|'s)\s+(\S+)\s+(?:originally\s+)?from\b/giu, ' where $1 hometown '],
];

/** `text` with the question phrases above replaced by the cue of the kind they ask for. */
export function rewriteQuestionPhrases(text: string): string {
  let out = text;
  for (const [phrase, cue] of QUESTION_PHRASES) out = out.replace(phrase, cue);
  return out;
}

/** The keyword terms of a query, its question phrases read as the kinds they ask for. */
export function queryKeywordTokens(query: string): string[] {
  return keywordTokens(rewriteQuestionPhrases(query));
}
