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

/**
 * builtin-v6's too: a question that asks *when* someone was born asks for a birthday ("when was
 * she born?", "what year was he born?", 她哪天出生的？), while "where was she born?" asks for a
 * hometown; the birthday cue is added and "born" kept, since facts say "was born in 1979" too.
 */
const V6_QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  ...QUESTION_PHRASES,
  [/\b(?:when|(?:what|which)\s+(?:year|day|date|month))\b[^?？.]{0,60}?\bborn\b/giu, '$& birthday'],
  [/(?:哪天|哪一天|哪年|哪一年|什么时候|几月几号|几月几日|几号)出生/gu, '$&生日'],
];

/**
 * builtin-v8's too: a question that asks where someone *grew up* or *comes from* asks for a
 * hometown, as "where is she from?" does (v5), and so does 她是哪里人？ ("where is she a person
 * of?"), whose words name no kind: each is read with the hometown cue beside its words.
 */
const V8_QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  ...V6_QUESTION_PHRASES,
  [/\b(?:grow|grows|growing|grew|grown)\s+up\b/giu, '$& hometown'],
  [/\b(?:come|comes|came)\s+from\b/giu, '$& hometown'],
  [/(?:哪里|哪儿|哪个地方|什么地方)(?:的)?人/gu, '$&老家'],
];

/** Phrase sets by the builtin model version that reads them (5 = builtin-v5's, 6 = v6's and v7's, 8 = v8's). */
export type QuestionPhraseSet = 5 | 6 | 8;

const PHRASE_SETS: Readonly<Record<QuestionPhraseSet, readonly (readonly [RegExp, string])[]>> = {
  5: QUESTION_PHRASES,
  6: V6_QUESTION_PHRASES,
  8: V8_QUESTION_PHRASES,
};

/** `text` with the question phrases of `set` replaced by the cue of the kind they ask for. */
export function rewriteQuestionPhrases(text: string, set: QuestionPhraseSet = 5): string {
  let out = text;
  for (const [phrase, cue] of PHRASE_SETS[set]) out = out.replace(phrase, cue);
  return out;
}

/** The keyword terms of a query, its question phrases (builtin-v6's set) read as the kinds they ask for. */
export function queryKeywordTokens(query: string): string[] {
  return keywordTokens(rewriteQuestionPhrases(query, 6));
}
