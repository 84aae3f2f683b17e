export { keywordTokens, estimateTokens, KEYWORD_TOKENIZER_VERSION } from './tokenize.ts';
export { analyzeText, type TextToken } from './analyze.ts';
export { stem } from './stem.ts';
export { ENGLISH_STOP_WORDS, CJK_STOP_CHARS } from './stop-words.ts';
