import { z } from 'zod';

/** `GET /v1/users`: the tenant's users, most recently active first. */
export const UserListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    /** The `next_cursor` of the page before. */
    cursor: z
      .string()
      .regex(/^\d{1,9}$/, 'cursor must be a next_cursor this endpoint returned')
      .optional(),
  })
  .strict();
export type UserListQuery = z.infer<typeof UserListQuery>;

export const TenantUser = z.object({
  user_id: z.string(),
  /** Active memories per layer; `working` counts the turns the user's open sessions hold. */
  layers: z.object({ working: z.number().int(), episodic: z.number().int(), semantic: z.number().int() }),
  /** Every long-term memory per layer and status (superseded, archived and quarantined ones too). */
  statuses: z.record(z.string(), z.record(z.string(), z.number().int())),
  open_sessions: z.number().int(),
  /** When the user's newest memory was learned or their working memory last written; ISO time. */
  last_activity_at: z.string().nullable(),
});
export type TenantUser = z.infer<typeof TenantUser>;

export const UserList = z.object({ items: z.array(TenantUser), next_cursor: z.string().nullable() });
export type UserList = z.infer<typeof UserList>;

export const OpenSessionView = z.object({
  session_id: z.string(),
  /** Turns the session's working memory holds now. */
  turns: z.number().int(),
  last_seq: z.number().int(),
  updated_at: z.string(),
});

/** `GET /v1/users/:id/sessions`: the user's sessions that still hold working memory. */
export const UserSessions = z.object({ user_id: z.string(), items: z.array(OpenSessionView) });
export type UserSessions = z.infer<typeof UserSessions>;
