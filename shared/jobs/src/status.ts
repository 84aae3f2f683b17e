import { z } from 'zod';

/** BullMQ job states as `GET /v1/jobs/:id` reports them. */
export const JOB_STATES = [
  'waiting',
  'active',
  'completed',
  'failed',
  'delayed',
  'prioritized',
  'waiting-children',
  'unknown',
] as const;

/** What `GET /v1/jobs/:id` answers. */
export const JobStatus = z.object({
  id: z.string(),
  name: z.string(),
  state: z.enum(JOB_STATES),
  /** Attempts made so far. */
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  result: z.unknown().optional(),
  failed_reason: z.string().optional(),
  created_at: z.string(),
  processed_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type JobStatus = z.infer<typeof JobStatus>;
