export { keywordTokens, estimateTokens } from './tokenize.ts';
