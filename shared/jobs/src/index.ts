export * from './catalogue.ts';
export * from './status.ts';
