export { analyzeText, type TextToken } from './analyze.ts';
export { type Bm25Parameters, bm25Score, bm25Weights, DEFAULT_BM25, termFrequencies } from './bm25.ts';
export { termCommonness } from './common-words.ts';
export { type QuestionPhraseSet, queryKeywordTokens, rewriteQuestionPhrases } from './question-phrases.ts';
export { stem } from './stem.ts';
export { CJK_STOP_CHARS, ENGLISH_STOP_WORDS } from './stop-words.ts';
export { estimateTokens, KEYWORD_TOKENIZER_VERSION, keywordTokens } from './tokenize.ts';
