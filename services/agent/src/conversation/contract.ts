import { CONTENT_LIMITS, EndSessionResponse, Identifier } from '@hindsight/memory-model';
import { z } from 'zod';

// The ids memory-api takes: a lone surrogate or a control character is the caller's 422, never a 503.
const Id = z.string().trim().pipe(Identifier);

export const ChatRequest = z
  .object({
    user_id: Id,
    session_id: Id,
    message: z
      .string()
      .trim()
      .min(1, 'message must not be empty')
      .max(CONTENT_LIMITS.working, `message must be at most ${CONTENT_LIMITS.working} characters`),
  })
  .strict();
export type ChatRequest = z.infer<typeof ChatRequest>;

export const UsedMemory = z.object({
  id: z.string(),
  content: z.string(),
  category: z.string(),
  layer: z.string(),
  score: z.number(),
});
export type UsedMemory = z.infer<typeof UsedMemory>;

export const ChatReply = z.object({
  reply: z.string(),
  /** The memories the reply was built on (the prompt's, or the offline policy's). */
  memories_used: z.array(UsedMemory),
  session_id: z.string(),
});
export type ChatReply = z.infer<typeof ChatReply>;

export const EndSessionRequest = z.object({ user_id: Id }).strict();

/** memory-api's answer (`job_id` is its consolidation job, `GET /v1/jobs/:id`) for the session named first. */
export const EndSessionReply = z.object({ session_id: z.string(), ...EndSessionResponse.shape });
export type EndSessionReply = z.infer<typeof EndSessionReply>;
