import { z } from 'zod';
import { boundedJson, Identifier, identifierProblem } from './identifier.ts';
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

const Id = Identifier;
const IsoTime = z.iso.datetime({ offset: true });

export const Tags = z.array(z.string().trim().min(1).max(MAX_TAG_LENGTH)).max(MAX_TAGS, `at most ${MAX_TAGS} tags`);

export const BoundedMetadata = boundedJson(Metadata, MAX_METADATA_BYTES);

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
    source: Source.extend({
      kind: z.enum(SOURCE_KINDS),
      session_id: Id.optional(),
      turn_ids: z.array(Id).max(200).optional(),
      extractor: z.string().max(128).optional(),
    })
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

/** The owner and context fields the short form also takes from `metadata` (kept there verbatim too). */
const METADATA_OWNER_FIELDS = ['user_id', 'session_id', 'agent_id'] as const;

/**
 * One memory as every write route takes it (`/store`, `/v1/memories`, each item of a batch): the
 * fields of `MemoryInput`, with the owner and time also taken from `metadata.user_id`,
 * `metadata.session_id`, `metadata.agent_id` and `metadata.timestamp`. A value there that cannot
 * be used (another type, an ill-formed id, an unreadable time) or that disagrees with the
 * top-level field is refused with the field's path — never dropped for a default.
 */
export const WriteItem = MemoryInput.superRefine((input, ctx) => {
  const meta = input.metadata;
  if (meta === undefined) return;
  for (const field of METADATA_OWNER_FIELDS) {
    if (!(field in meta)) continue;
    const value = meta[field];
    const problem = typeof value === 'string' ? identifierProblem(value) : `must be a string (the ${field} it names)`;
    if (problem) {
      ctx.addIssue({ code: 'custom', path: ['metadata', field], message: problem });
    } else if (input[field] !== undefined && input[field] !== value) {
      ctx.addIssue({
        code: 'custom',
        path: ['metadata', field],
        message: `${JSON.stringify(value)} disagrees with ${field} ${JSON.stringify(input[field])}: send one, or the same in both`,
      });
    }
  }
  if ('timestamp' in meta) {
    const at = instantOf(meta.timestamp);
    if (at === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['metadata', 'timestamp'],
        message: 'must be an ISO-8601 time ("2024-03-15T10:00:00Z") or epoch seconds or milliseconds',
      });
    } else if (input.occurred_at !== undefined && Date.parse(input.occurred_at) !== at) {
      ctx.addIssue({
        code: 'custom',
        path: ['metadata', 'timestamp'],
        message: `disagrees with occurred_at ${input.occurred_at}: send one, or the same time in both`,
      });
    }
  }
}).transform((input): MemoryInput => {
  const meta = input.metadata;
  if (meta === undefined) return input;
  const out = { ...input };
  for (const field of METADATA_OWNER_FIELDS) if (typeof meta[field] === 'string') out[field] ??= meta[field];
  const at = 'timestamp' in meta ? instantOf(meta.timestamp) : undefined;
  if (at !== undefined) out.occurred_at ??= new Date(at).toISOString();
  return out;
});

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
/** Epoch ms of the earliest and latest time a memory may carry (years 1000–9999). */
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Epoch ms of a short-form `metadata.timestamp`: an ISO-8601 date or time (without an offset: UTC)
 * or a number of epoch seconds (below 10^12) or milliseconds; undefined when it is neither.
 */
export function instantOf(value: unknown): number | undefined {
  let at: number;
  if (typeof value === 'number') {
    at = Math.abs(value) < 1e12 ? value * 1000 : value;
  } else if (typeof value === 'string') {
    const match = ISO_TIME.exec(value.trim());
    if (!match) return undefined;
    const text = value.trim();
    at = Date.parse(text.length > 10 && match[1] === undefined ? `${text}Z` : text);
  } else {
    return undefined;
  }
  return Number.isFinite(at) && at >= EARLIEST && at <= LATEST ? at : undefined;
}

export const MemoryBatchInput = z
  .object({
    items: z
      .array(WriteItem)
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
  /**
   * With `status: "created"`: the memory arrived already superseded by this one, which says
   * otherwise and was said later in conversation time (`occurred_at`); it is kept as history.
   */
  superseded_by: z.string().optional(),
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
  /** Tokens `context` spends of `token_budget`, by the estimate the budget is spent with. */
  context_tokens: z.number().int(),
  truncated: z.boolean(),
  timed_out: z.boolean(),
  /** The query could not be embedded (the embedder is down or slow): results are keyword matches only. */
  dense_skipped: z.boolean(),
  took_ms: z.number(),
});
export type SearchResponse = z.infer<typeof SearchResponse>;

/** An empty list would match nothing, and read as "no filter" it would match everything: refused. */
const nonEmpty = <T extends z.ZodArray<z.ZodType>>(list: T) =>
  list.min(1, 'name at least one, or leave the field out (an empty list is not "no filter")');

/** Filters for listing and forgetting. */
export const MemoryFilter = z
  .object({
    user_id: Id.optional(),
    agent_id: Id.optional(),
    session_id: Id.optional(),
    memory_types: nonEmpty(z.array(MemoryType).max(16)).optional(),
    categories: nonEmpty(z.array(Category).max(32)).optional(),
    tags: nonEmpty(Tags).optional(),
    status: nonEmpty(z.array(MemoryStatus)).optional(),
    time_range: TimeRange.optional(),
    before: IsoTime.optional(),
  })
  .strict();
export type MemoryFilter = z.infer<typeof MemoryFilter>;

/** The fields of a forget request that choose what goes. */
export const FORGET_FILTERS = [
  'memory_id',
  'user_id',
  'agent_id',
  'session_id',
  'memory_types',
  'categories',
  'tags',
  'status',
  'time_range',
  'before',
] as const;
export type ForgetFilterName = (typeof FORGET_FILTERS)[number];

/**
 * The one rule for every way in (REST, MCP, CLI): a forget names at least one of `filters`, and it
 * never forgets everything at once. A caller that always confines forgetting to one owner (the MCP
 * tool) passes the filters besides the owner: the owner alone is not a choice of what to forget.
 * Returns the refusal, or `null` when the request names one.
 */
export function forgetFilterMissing(
  request: Readonly<Record<string, unknown>>,
  filters: readonly ForgetFilterName[] = FORGET_FILTERS,
  what = 'forget',
): string | null {
  const named = filters.some((name) => {
    const value = request[name];
    return value !== undefined && !(Array.isArray(value) && value.length === 0);
  });
  if (named) return null;
  const listed = `${filters.slice(0, -1).join(', ')} or ${filters[filters.length - 1]}`;
  return `${what} needs ${listed}; it never forgets everything at once`;
}

export const ForgetRequest = MemoryFilter.extend({
  memory_id: Id.optional(),
  dry_run: z.boolean().default(false),
})
  .strict()
  .superRefine((request, ctx) => {
    const missing = forgetFilterMissing(request);
    if (missing) ctx.addIssue({ code: 'custom', message: missing });
  });
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
