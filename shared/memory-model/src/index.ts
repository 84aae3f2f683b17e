export { contentHash } from './hash.ts';
export * from './limits.ts';
export * from './record.ts';
export * from './requests.ts';
export { searchableText } from './search-text.ts';
export * from './security.ts';
export * from './taxonomy.ts';
export * from './time-range.ts';
export * from './working.ts';
