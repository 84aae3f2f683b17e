import { ForgetRequest, forgetFilterMissing, Identifier, MemoryFilter } from '@hindsight/memory-model';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ForgetOutcome } from '../../memory/forget.ts';
import { DEFAULT_USER } from '../../memory/write.ts';
import { runTool } from '../tool-result.ts';
import { ownerOf, type ToolContext, USER_ID_DESCRIPTION } from './context.ts';

const fields = MemoryFilter.shape;

export const MemoryForgetArgs = MemoryFilter.pick({ session_id: true, tags: true, before: true, user_id: true })
  .extend({
    memory_id: Identifier.optional().describe('Forget this one memory (an id from memory_search or memory_write).'),
    session_id: fields.session_id.describe(
      "Forget what was learned in this session; alone, it also clears the session's working memory.",
    ),
    tags: fields.tags.describe('Forget memories carrying any of these tags.'),
    before: fields.before.describe('Forget memories learned before this time (ISO-8601).'),
    user_id: fields.user_id.describe(USER_ID_DESCRIPTION),
    dry_run: z.boolean().default(false).describe('Only count what would be forgotten.'),
  })
  .superRefine((args, ctx) => {
    // The owner is always applied (one user's memories), so it is not a choice of what to forget.
    const missing = forgetFilterMissing(args, ['memory_id', 'session_id', 'tags', 'before'], 'memory_forget');
    if (missing) ctx.addIssue({ code: 'custom', message: missing });
  });

export function registerMemoryForget(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'memory_forget',
    {
      title: 'Forget memories',
      description:
        "Permanently delete the user's memories matching memory_id, session_id, tags or before (at least one). " +
        'Use dry_run to see how many would go. Cannot be undone.',
      inputSchema: MemoryForgetArgs,
      outputSchema: ForgetOutcome,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('memory_forget', ctx.log, async () => {
        // Always one user's memories: a filter like `tags` alone must not reach other users of the tenant.
        const owner = ownerOf(ctx, args.user_id) ?? DEFAULT_USER;
        return ctx.access.forget(ForgetRequest.parse({ ...args, user_id: owner }));
      }),
  );
}
