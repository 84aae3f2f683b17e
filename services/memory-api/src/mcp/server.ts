import type { Logger } from '@hindsight/logger';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MemoryAccess } from './access.ts';
import { registerMemoryForget } from './tools/memory-forget.ts';
import { registerMemorySearch } from './tools/memory-search.ts';
import { registerMemoryWrite } from './tools/memory-write.ts';

export interface McpServerDeps {
  /** The memory of the caller's tenant. */
  access: MemoryAccess;
  /** The connection's user (X-User-Id / HINDSIGHT_USER_ID); a tool's `user_id` argument wins. */
  userId?: string;
  log: Logger;
  version?: string;
}

export const MCP_SERVER_NAME = 'hindsight-memory';

/** The three memory tools of DESIGN §6 on one MCP server; transports are the callers' business. */
export function createMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: deps.version ?? '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Long-term memory of the user. Call memory_search before answering anything that may depend on what the user ' +
        'said before; call memory_write for durable facts, preferences and decisions worth keeping; memory_forget deletes.',
    },
  );
  const ctx = { access: deps.access, log: deps.log, ...(deps.userId ? { userId: deps.userId } : {}) };
  registerMemoryWrite(server, ctx);
  registerMemorySearch(server, ctx);
  registerMemoryForget(server, ctx);
  return server;
}
