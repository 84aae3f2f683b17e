import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The queue every hindsight job runs on (DESIGN §5). */
export const QUEUE_NAME = 'hindsight';

/** The `QUEUE_NAME` setting of the producer (memory-api) and the worker, which must agree. */
export const QueueNameSetting = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only')
  .default(QUEUE_NAME);

/** BullMQ's key prefix under the deployment's `REDIS_PREFIX`, so one Redis serves several deployments. */
export function queueKeyPrefix(redisPrefix: string): string {
  return `${redisPrefix}:bull`;
}

const Id = z.string().min(1).max(128);

export const CONSOLIDATION_TRIGGERS = ['end', 'idle', 'size'] as const;

/** Consolidate one session's working memory up to and including turn `through_seq`. */
export const ConsolidatePayload = z
  .object({
    tenant: Id,
    user_id: Id,
    session_id: Id,
    /** The session's turn count when the job was enqueued; turns after it belong to a later job. */
    through_seq: z.number().int().min(1),
    trigger: z.enum(CONSOLIDATION_TRIGGERS),
  })
  .strict();
export type ConsolidatePayload = z.infer<typeof ConsolidatePayload>;

export const ConsolidationResult = z.object({
  turns: z.number().int(),
  extracted: z.number().int(),
  created: z.number().int(),
  merged: z.number().int(),
  superseded: z.number().int(),
  duplicates: z.number().int(),
  quarantined: z.number().int(),
  /** Items the write path refused (poisoning guard, limits); the rest of the session still counts. */
  rejected: z.number().int(),
  /** The session's turns kept as episodic `turn` memories (pleasantries left out). */
  transcript: z.object({ written: z.number().int(), duplicates: z.number().int(), rejected: z.number().int() }),
  summary_id: z.string().nullable(),
  memory_ids: z.array(z.string()),
  extractor: z.string(),
  llm_calls: z.number().int(),
  tokens: z.number().int(),
  duration_ms: z.number(),
});
export type ConsolidationResult = z.infer<typeof ConsolidationResult>;

/** Recompute decay weights, archive faded memories, delete archived ones past retention. */
export const DecayPayload = z.object({}).strict();
export type DecayPayload = z.infer<typeof DecayPayload>;

export const DecayResult = z.object({
  tenants: z.number().int(),
  scanned: z.number().int(),
  reweighted: z.number().int(),
  archived: z.number().int(),
  deleted: z.number().int(),
  duration_ms: z.number(),
});
export type DecayResult = z.infer<typeof DecayResult>;

/**
 * Refresh profile summaries: one user's (after a consolidation), or every user whose
 * sessions were consolidated within the last `recent_hours` (the scheduled sweep).
 */
export const SummarizePayload = z.union([
  z.object({ tenant: Id, user_id: Id }).strict(),
  z
    .object({
      recent_hours: z
        .number()
        .int()
        .min(1)
        .max(24 * 31),
    })
    .strict(),
]);
export type SummarizePayload = z.infer<typeof SummarizePayload>;

export const SummarizeResult = z.object({
  users: z.number().int(),
  summaries: z.array(
    z.object({ tenant: z.string(), user_id: z.string(), memories: z.number().int(), chars: z.number().int() }),
  ),
  duration_ms: z.number(),
});
export type SummarizeResult = z.infer<typeof SummarizeResult>;

export interface RetryPolicy {
  attempts: number;
  backoff: { type: 'exponential'; delay: number };
}

/** Job name → payload schema, result schema, retry policy. The one place a job is defined. */
export const JOBS = {
  consolidate: {
    payload: ConsolidatePayload,
    result: ConsolidationResult,
    retry: { attempts: 5, backoff: { type: 'exponential', delay: 5_000 } },
  },
  decay: {
    payload: DecayPayload,
    result: DecayResult,
    retry: { attempts: 3, backoff: { type: 'exponential', delay: 60_000 } },
  },
  summarize: {
    payload: SummarizePayload,
    result: SummarizeResult,
    retry: { attempts: 3, backoff: { type: 'exponential', delay: 10_000 } },
  },
} as const satisfies Record<string, { payload: z.ZodType; result: z.ZodType; retry: RetryPolicy }>;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOBS)[N]['payload']>;

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(JOBS, name);
}

/** A payload that does not match its schema: retrying can never help. */
export class InvalidJobPayloadError extends Error {
  constructor(
    readonly jobName: string,
    readonly problems: string[],
  ) {
    super(`invalid ${jobName} payload: ${problems.join('; ')}`);
    this.name = 'InvalidJobPayloadError';
  }
}

/** Validates a payload against the catalogue (on enqueue and again on processing). */
export function parsePayload<N extends JobName>(name: N, data: unknown): JobPayload<N> {
  const parsed = JOBS[name].payload.safeParse(data);
  if (!parsed.success) {
    throw new InvalidJobPayloadError(
      name,
      parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`),
    );
  }
  return parsed.data as JobPayload<N>;
}

export interface RetryOverrides {
  attempts?: number;
  /** First backoff delay in ms; later ones double. */
  backoffMs?: number;
}

/** BullMQ job options of a job name: its retry policy, and retention so finished jobs stay visible. */
export function jobOptions(name: JobName, overrides: RetryOverrides = {}) {
  const { retry } = JOBS[name];
  return {
    attempts: overrides.attempts ?? retry.attempts,
    backoff: { type: retry.backoff.type, delay: overrides.backoffMs ?? retry.backoff.delay },
    // Finished jobs stay inspectable (dashboard, GET /v1/jobs/:id) and keep deterministic ids deduplicating.
    removeOnComplete: { age: 7 * 86_400, count: 10_000 },
    removeOnFail: { age: 30 * 86_400, count: 10_000 },
  };
}

function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u001f')).digest('hex').slice(0, 24);
}

/**
 * Deterministic id of a session's consolidation: tenant + session + turn count. A
 * trigger fired twice (end called twice, idle timer and end) maps to one job. BullMQ
 * ids may not contain ':', so the owner part is a digest.
 */
export function consolidationJobId(tenant: string, sessionId: string, throughSeq: number): string {
  return `consolidate-${sessionDigest(tenant, sessionId)}-${throughSeq}`;
}

/** The prefix every consolidation job id of one session shares. */
export function sessionDigest(tenant: string, sessionId: string): string {
  return digest('session', tenant, sessionId);
}

/** One summary refresh per user per triggering job. */
export function summaryJobId(tenant: string, userId: string, trigger: string): string {
  return `summarize-${digest('user', tenant, userId)}-${digest(trigger).slice(0, 12)}`;
}
