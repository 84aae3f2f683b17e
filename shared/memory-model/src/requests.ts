import { z } from 'zod';
import {
  CONTENT_LIMITS,
  DEFAULT_TOKEN_BUDGET,
  MAX_BATCH_ITEMS,
  MAX_METADATA_BYTES,
  MAX_QUERY_LENGTH,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  MAX_TOKEN_BUDGET,
  MAX_TOP_K,
} from './limits.ts';
import { MemoryRecord, Metadata, Source } from './record.ts';
import { Category, MemoryStatus, MemoryType, SOURCE_KINDS } from './taxonomy.ts';
import { TimeRange } from './time-range.ts';

const Id = z.string().min(1).max(128);
const IsoTime = z.iso.datetime({ offset: true });

export const Tags = z.array(z.string().trim().min(1).max(MAX_TAG_LENGTH)).max(MAX_TAGS, `at most ${MAX_TAGS} tags`);

export const BoundedMetadata = Metadata.refine(
  (m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES,
  `metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
);

/** One memory to write (`/store`, `/v1/memories`, MCP `memory_write`, worker writes). */
export const MemoryInput = z
  .object({
    content: z
      .string()
      .trim()
      .min(1, 'content must not be empty')
      .max(CONTENT_LIMITS.working, `content must be at most ${CONTENT_LIMITS.working} characters`),
    memory_type: MemoryType.optional(),
    category: Category.optional(),
    user_id: Id.optional(),
    agent_id: Id.optional(),
    session_id: Id.optional(),
    occurred_at: IsoTime.optional(),
    query: z.string().trim().min(1).max(500).optional(),
    tags: Tags.optional(),
    metadata: BoundedMetadata.optional(),
    confidence: z.number().min(0).max(1).optional(),
    importance: z.number().min(0).max(1).optional(),
    source: Source.extend({ kind: z.enum(SOURCE_KINDS) })
      .partial({ kind: true })
      .optional(),
    ttl_seconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .optional(),
  })
  .strict();
export type MemoryInput = z.infer<typeof MemoryInput>;

export const MemoryBatchInput = z
  .object({
    items: z
      .array(MemoryInput)
      .min(1, 'items must not be empty')
      .max(MAX_BATCH_ITEMS, `a batch holds at most ${MAX_BATCH_ITEMS} items`),
  })
  .strict();

export const WRITE_STATUSES = ['created', 'duplicate', 'merged', 'superseded', 'quarantined'] as const;
export const WriteResult = z.object({
  id: z.string(),
  status: z.enum(WRITE_STATUSES),
  layer: z.string(),
  superseded_ids: z.array(z.string()).optional(),
  /** Kinds of secret taken out of the stored text (`card_number`, `api_key`, `password`, …); absent when none. */
  redacted: z.array(z.string()).optional(),
  /** With `status: "quarantined"`: why the poisoning guard held it back. */
  reason: z.string().optional(),
});
export type WriteResult = z.infer<typeof WriteResult>;
export const WriteBatchResult = z.object({ items: z.array(WriteResult) });

/** Search request (`/retrieve`, `/v1/search`, MCP `memory_search`). */
export const SearchRequest = z
  .object({
    query: z.string().trim().min(1, 'query must not be empty').max(MAX_QUERY_LENGTH),
    user_id: Id.optional(),
    agent_id: Id.optional(),
    session_id: Id.optional(),
    top_k: z.number().int().min(1).max(MAX_TOP_K, `top_k must be at most ${MAX_TOP_K}`).default(10),
    time_range: TimeRange.optional(),
    memory_types: z.array(MemoryType).max(16).optional(),
    categories: z.array(Category).max(32).optional(),
    tags: Tags.optional(),
    token_budget: z.number().int().min(1).max(MAX_TOKEN_BUDGET).default(DEFAULT_TOKEN_BUDGET),
    include_superseded: z.boolean().default(false),
    deadline_ms: z.number().int().min(1).max(60_000).optional(),
    /**
     * Results scoring below this are left out (score is a relevance in 0..1, comparable across
     * queries); unset → the service's SEARCH_MIN_SCORE. 0 returns every candidate.
     */
    min_score: z.number().min(0).max(1).optional(),
  })
  .strict();
export type SearchRequest = z.infer<typeof SearchRequest>;

export const ScoreBreakdown = z.object({
  similarity: z.number(),
  keyword: z.number(),
  recency: z.number(),
  confidence: z.number(),
});

export const SearchHit = z.object({
  id: z.string(),
  content: z.string(),
  layer: z.string(),
  category: z.string(),
  score: z.number(),
  scores: ScoreBreakdown,
  status: MemoryStatus,
  tags: z.array(z.string()),
  occurred_at: z.string(),
  created_at: z.string(),
  metadata: Metadata,
  source: Source,
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchResponse = z.object({
  results: z.array(SearchHit),
  context: z.string(),
  truncated: z.boolean(),
  timed_out: z.boolean(),
  /** The query could not be embedded (the embedder is down or slow): results are keyword matches only. */
  dense_skipped: z.boolean(),
  took_ms: z.number(),
});
export type SearchResponse = z.infer<typeof SearchResponse>;

/** Filters for listing and forgetting. */
export const MemoryFilter = z
  .object({
    user_id: Id.optional(),
    agent_id: Id.optional(),
    session_id: Id.optional(),
    memory_types: z.array(MemoryType).max(16).optional(),
    categories: z.array(Category).max(32).optional(),
    tags: Tags.optional(),
    status: z.array(MemoryStatus).optional(),
    time_range: TimeRange.optional(),
    before: IsoTime.optional(),
  })
  .strict();
export type MemoryFilter = z.infer<typeof MemoryFilter>;

export const ForgetRequest = MemoryFilter.extend({
  memory_id: Id.optional(),
  dry_run: z.boolean().default(false),
})
  .strict()
  .refine(
    (r) => Object.entries(r).some(([k, v]) => k !== 'dry_run' && v !== undefined),
    'forget needs at least one filter (memory_id, user_id, session_id, tags, before, …); refusing to forget everything',
  );
export type ForgetRequest = z.infer<typeof ForgetRequest>;
export const ForgetPreviewItem = MemoryRecord.pick({
  id: true,
  user_id: true,
  session_id: true,
  layer: true,
  category: true,
  status: true,
  content: true,
  occurred_at: true,
});
export type ForgetPreviewItem = z.infer<typeof ForgetPreviewItem>;
export const ForgetResponse = z.object({
  count: z.number().int(),
  /** The first 1000 ids forgotten (or, with `dry_run`, that would be). */
  ids: z.array(z.string()),
  dry_run: z.boolean(),
  /** With `dry_run`: the first 100 memories that would be forgotten, so a person can check before confirming. */
  preview: z.array(ForgetPreviewItem).optional(),
});
export type ForgetResponse = z.infer<typeof ForgetResponse>;

/** Editable fields of PATCH /v1/memories/:id. */
export const MemoryPatch = z
  .object({
    content: z.string().trim().min(1).max(CONTENT_LIMITS.working).optional(),
    category: Category.optional(),
    tags: Tags.optional(),
    metadata: BoundedMetadata.optional(),
    confidence: z.number().min(0).max(1).optional(),
    importance: z.number().min(0).max(1).nullable().optional(),
    status: z.enum(['active', 'archived', 'quarantined']).optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, 'patch must change at least one field');
export type MemoryPatch = z.infer<typeof MemoryPatch>;

export const ListQuery = z
  .object({
    user_id: Id.optional(),
    agent_id: Id.optional(),
    session_id: Id.optional(),
    memory_type: MemoryType.optional(),
    category: Category.optional(),
    tag: z.string().optional(),
    status: MemoryStatus.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(50),
    cursor: z.string().max(512).optional(),
  })
  .strict();
export type ListQuery = z.infer<typeof ListQuery>;

export const MemoryList = z.object({ items: z.array(MemoryRecord), next_cursor: z.string().nullable() });
