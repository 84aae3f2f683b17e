import { z } from 'zod';

/** `GET /debug/memory` (admin key): memories per layer and status, recent activity, queue depth. */
export const DebugMemory = z.object({
  layers: z.record(z.string(), z.record(z.string(), z.number().int())),
  total: z.number().int(),
  last_write_at: z.string().nullable(),
  retrieval: z.object({ searches: z.number().int(), with_results: z.number().int(), hit_rate: z.number().nullable() }),
  queue: z.record(z.string(), z.number().int()).nullable(),
  /** Activity figures (last write, retrieval) count this replica since it started. */
  since: z.string(),
});
export type DebugMemory = z.infer<typeof DebugMemory>;
