import { z } from 'zod';
import { boundedJson, Identifier } from './identifier.ts';
import { CONTENT_LIMITS } from './limits.ts';

const Id = Identifier;
const IsoTime = z.iso.datetime({ offset: true });
const MAX_TOOL_BYTES = 8 * 1024;

/** Who spoke a turn. `note` is a scratch note written through `/store` with `memory_type: "working"`. */
export const TURN_ROLES = ['user', 'assistant', 'tool', 'system', 'note'] as const;
export const TurnRole = z.enum(TURN_ROLES);
export type TurnRole = z.infer<typeof TurnRole>;

/** A tool call the turn made or reported: its name and, optionally, input and result (JSON). */
export const TurnTool = boundedJson(
  z
    .object({ name: z.string().trim().min(1).max(128), input: z.unknown().optional(), result: z.unknown().optional() })
    .strict(),
  MAX_TOOL_BYTES,
);
export type TurnTool = z.infer<typeof TurnTool>;

/** One turn appended to a session's working memory (`POST /v1/sessions/:id/turns`). */
export const TurnInput = z
  .object({
    user_id: Id,
    role: z.enum(['user', 'assistant', 'tool', 'system']),
    content: z
      .string()
      .trim()
      .min(1, 'content must not be empty')
      .max(CONTENT_LIMITS.working, `content must be at most ${CONTENT_LIMITS.working} characters`),
    timestamp: IsoTime.optional(),
    tool: TurnTool.optional(),
  })
  .strict();
export type TurnInput = z.infer<typeof TurnInput>;

export const MAX_TURNS_PER_APPEND = 200;

/**
 * One turn, or `{turns: [...]}` (all of one user, appended in order, all-or-nothing).
 * A single turn is read as a batch of one, so errors name the field that is wrong.
 */
export const AppendTurnsBody = z.preprocess(
  (body) =>
    body !== null && typeof body === 'object' && !Array.isArray(body) && !('turns' in body) ? { turns: [body] } : body,
  z
    .object({
      turns: z
        .array(TurnInput)
        .min(1, 'turns must not be empty')
        .max(MAX_TURNS_PER_APPEND, `at most ${MAX_TURNS_PER_APPEND} turns per request`),
    })
    .strict(),
);
export type AppendTurnsBody = z.infer<typeof AppendTurnsBody>;

/** A stored turn. `id` is `t<seq>`; `seq` counts the session's turns from 1 and never repeats. */
export const Turn = z.object({
  id: z.string(),
  seq: z.number().int(),
  role: TurnRole,
  content: z.string(),
  timestamp: z.string(),
  tool: z.unknown().optional(),
});
export type Turn = z.infer<typeof Turn>;

export const AppendTurnsResponse = z.object({
  session_id: z.string(),
  turn_ids: z.array(z.string()),
  last_seq: z.number().int(),
  /** Turns waiting for consolidation. */
  pending_turns: z.number().int(),
  /** Set when this append crossed the size threshold and started a consolidation. */
  consolidation_job_id: z.string().optional(),
});
export type AppendTurnsResponse = z.infer<typeof AppendTurnsResponse>;

export const SessionTurns = z.object({
  session_id: z.string(),
  user_id: z.string().nullable(),
  turns: z.array(Turn),
  last_seq: z.number().int(),
  /** Seconds until the session's working memory expires; null when it holds nothing. */
  ttl_seconds: z.number().int().nullable(),
});
export type SessionTurns = z.infer<typeof SessionTurns>;

export const EndSessionBody = z.object({ user_id: Id }).strict();
export type EndSessionBody = z.infer<typeof EndSessionBody>;

export const EndSessionResponse = z.object({
  job_id: z.string(),
  state: z.string(),
  /** True when this session end had already been enqueued (the same job is returned). */
  deduplicated: z.boolean(),
});
export type EndSessionResponse = z.infer<typeof EndSessionResponse>;

/** The per-user profile an agent loads first (`GET /v1/users/:id/summary`). */
export const UserSummary = z.object({
  user_id: z.string(),
  summary: z.string().nullable(),
  updated_at: z.string().nullable(),
  memory_id: z.string().nullable(),
});
export type UserSummary = z.infer<typeof UserSummary>;

export const PutUserSummaryBody = z
  .object({
    content: z
      .string()
      .trim()
      .min(1)
      .max(CONTENT_LIMITS.semantic, `a profile summary is at most ${CONTENT_LIMITS.semantic} characters`),
    source_memory_ids: z.array(Id).max(200).optional(),
  })
  .strict();
export type PutUserSummaryBody = z.infer<typeof PutUserSummaryBody>;
