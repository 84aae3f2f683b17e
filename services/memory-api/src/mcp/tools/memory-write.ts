import { MemoryInput, MemoryType, WriteResult } from '@hindsight/memory-model';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { runTool } from '../tool-result.ts';
import { ownerOf, type ToolContext, USER_ID_DESCRIPTION } from './context.ts';

const fields = MemoryInput.shape;

/** The subset of the REST write body a model needs; limits and messages come from the shared schema. */
export const MemoryWriteArgs = MemoryInput.pick({
  content: true,
  category: true,
  tags: true,
  ttl_seconds: true,
  session_id: true,
  user_id: true,
}).extend({
  content: fields.content.describe(
    'One self-contained statement (semantic ≤ 500 chars, episodic ≤ 2000, working ≤ 8000), e.g. "Allergic to peanuts".',
  ),
  memory_type: MemoryType.describe(
    'A layer (working: this session only, needs session_id; episodic: something that happened; semantic: a stable fact) ' +
      'or a category that maps to a layer (preference, fact, decision, commitment, error, todo, lesson, … → semantic; event → episodic).',
  ),
  category: fields.category.describe('Optional category within the layer, lower_snake_case (e.g. preference, fact).'),
  tags: fields.tags.describe('Optional labels (≤ 20) to filter by later.'),
  ttl_seconds: fields.ttl_seconds.describe('Optional lifetime in seconds; the memory stops being valid afterwards.'),
  session_id: fields.session_id.describe('The conversation session; required for memory_type "working".'),
  user_id: fields.user_id.describe(USER_ID_DESCRIPTION),
});

export function registerMemoryWrite(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'memory_write',
    {
      title: 'Remember something',
      description:
        'Store one memory for the user. Exact duplicates are confirmed instead of stored twice; a near-duplicate fact refines ' +
        'the existing one; a contradicting fact supersedes it (the old one is kept in history). Returns the id and what happened.',
      inputSchema: MemoryWriteArgs,
      outputSchema: WriteResult,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        // Repeating a write confirms the memory again (proof_count grows), so repeats are not free of effect.
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool('memory_write', ctx.log, async () => {
        const { user_id, ...rest } = args;
        const owner = ownerOf(ctx, user_id);
        return ctx.access.write({ ...rest, ...(owner ? { user_id: owner } : {}) });
      }),
  );
}
