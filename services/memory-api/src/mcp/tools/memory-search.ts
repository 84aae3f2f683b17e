import { SearchRequest, SearchResponse } from '@hindsight/memory-model';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { runTool } from '../tool-result.ts';
import { ownerOf, type ToolContext, USER_ID_DESCRIPTION } from './context.ts';

const fields = SearchRequest.shape;

export const MemorySearchArgs = SearchRequest.pick({
  query: true,
  top_k: true,
  memory_types: true,
  time_range: true,
  tags: true,
  token_budget: true,
  session_id: true,
  user_id: true,
  min_score: true,
}).extend({
  query: fields.query.describe('What to look for, as a standalone question or phrase (e.g. "food allergies").'),
  top_k: fields.top_k.describe('How many memories at most (1–100, default 10).'),
  memory_types: fields.memory_types.describe('Only these layers or categories (e.g. ["semantic"], ["preference"]).'),
  time_range: fields.time_range.describe(
    'Only memories from this window: "24h", "7d", "30d" or {from, to} (ISO-8601).',
  ),
  tags: fields.tags.describe('Only memories carrying at least one of these tags.'),
  token_budget: fields.token_budget.describe('Most tokens the results may take (default 2048; 512 for quick Q&A).'),
  session_id: fields.session_id.describe("Also search this session's working memory."),
  user_id: fields.user_id.describe(USER_ID_DESCRIPTION),
  min_score: fields.min_score.describe(
    'Leave out results scoring below this relevance (0–1; default set by the service, 0 returns every candidate).',
  ),
});

export function registerMemorySearch(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'memory_search',
    {
      title: 'Recall memories',
      description:
        "Find the user's memories relevant to a query (hybrid semantic + keyword search, ranked by relevance, confidence and " +
        'recency). Returns the results, a prompt-ready `context` (one dated line per memory) and `truncated` when the token ' +
        'budget cut results.',
      inputSchema: MemorySearchArgs,
      outputSchema: SearchResponse,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('memory_search', ctx.log, async () => {
        const owner = ownerOf(ctx, args.user_id);
        // Re-parsed by the shared schema so every default of the REST read path applies here too.
        const request = SearchRequest.parse({ ...args, ...(owner ? { user_id: owner } : {}) });
        return ctx.access.search(request);
      }),
  );
}
