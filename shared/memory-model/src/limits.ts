import type { Layer } from './taxonomy.ts';

/** DESIGN §2 limits; a write breaking one is rejected whole with 422. */
export const CONTENT_LIMITS: Record<Layer, number> = { semantic: 500, episodic: 2000, working: 8000 };
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 64;
export const MAX_METADATA_BYTES = 8 * 1024;
export const MAX_BATCH_ITEMS = 1000;
export const MAX_QUERY_LENGTH = 2000;
export const MAX_TOP_K = 100;
export const MAX_TOKEN_BUDGET = 32_000;
export const DEFAULT_TOKEN_BUDGET = 2048;
