import { z } from 'zod';
import { Layer, MemoryStatus, SourceKind } from './taxonomy.ts';

/** JSON metadata kept and returned verbatim. */
export const Metadata = z.record(z.string(), z.unknown());

export const Source = z.object({
  kind: SourceKind,
  session_id: z.string().optional(),
  turn_ids: z.array(z.string()).optional(),
  extractor: z.string().optional(),
});
export type Source = z.infer<typeof Source>;

/** One earlier version of a memory, kept when it was merged, edited or superseded. */
export const HistoryEntry = z.object({
  at: z.string(),
  action: z.enum(['created', 'merged', 'updated', 'superseded', 'archived', 'restored', 'quarantined']),
  content: z.string(),
  note: z.string().optional(),
  /**
   * Why the write path merged or superseded (`rule:negation`, `rule:same-key`, `judge:llm:<model>` …),
   * so a surprising decision can be traced to the rule or judge that made it.
   */
  reason: z.string().optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** A long-term memory record (DESIGN §2). Times are ISO-8601 strings. */
export const MemoryRecord = z.object({
  id: z.string(),
  tenant: z.string(),
  user_id: z.string(),
  agent_id: z.string().nullable(),
  session_id: z.string().nullable(),
  layer: Layer,
  category: z.string(),
  content: z.string(),
  query: z.string().nullable(),
  tags: z.array(z.string()),
  metadata: Metadata,
  confidence: z.number(),
  importance: z.number().nullable(),
  proof_count: z.number().int(),
  source: Source,
  occurred_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  valid_until: z.string().nullable(),
  status: MemoryStatus,
  superseded_by: z.string().nullable(),
  history: z.array(HistoryEntry),
  access_count: z.number().int(),
  last_accessed_at: z.string().nullable(),
  decay_weight: z.number(),
  content_hash: z.string(),
  embedding_model: z.string(),
  /**
   * Optimistic-concurrency version: 1 when the memory is learned, one more on every committed
   * update. An update commits only if the stored version is still the one it was decided on.
   */
  version: z.number().int().min(1).default(1),
});
export type MemoryRecord = z.infer<typeof MemoryRecord>;
