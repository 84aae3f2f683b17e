import type { Logger } from '@hindsight/logger';
import type { MemoryAccess } from '../access.ts';

/** What every tool gets: the memory backend of the caller's tenant, the default user, a logger. */
export interface ToolContext {
  access: MemoryAccess;
  /** The user from the transport (X-User-Id, HINDSIGHT_USER_ID); a `user_id` argument wins. */
  userId?: string;
  log: Logger;
}

export const USER_ID_DESCRIPTION =
  'Whose memories these are. Defaults to the user of the connection (X-User-Id header or HINDSIGHT_USER_ID).';

/** The owner of a call: the argument, else the connection's user, else memory-api's default user. */
export function ownerOf(ctx: ToolContext, argument: string | undefined): string | undefined {
  return argument ?? ctx.userId;
}
