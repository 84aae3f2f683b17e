export * from './taxonomy.ts';
export * from './limits.ts';
export * from './time-range.ts';
export * from './record.ts';
export * from './requests.ts';
export * from './working.ts';
export { contentHash } from './hash.ts';
export { searchableText } from './search-text.ts';
