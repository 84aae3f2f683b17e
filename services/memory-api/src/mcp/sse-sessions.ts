import { AppError } from '@hindsight/errors';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';

/** One client of the legacy HTTP+SSE transport: its event stream and the server behind it. */
export interface SseSession {
  transport: SSEServerTransport;
  server: McpServer;
  /** The tenant of the key that opened the stream; messages must come with a key of the same tenant. */
  tenant: string;
  /** X-User-Id given when the stream was opened. */
  userId?: string;
}

/**
 * The open SSE sessions of this process. They cannot be shared: each holds a live HTTP response,
 * so a message must reach the replica that holds its stream (sticky sessions behind a balancer).
 */
export class SseSessions {
  private readonly open = new Map<string, SseSession>();

  get size(): number {
    return this.open.size;
  }

  add(session: SseSession): void {
    this.open.set(session.transport.sessionId, session);
  }

  /** The session, when it is open here and belongs to `tenant`. */
  find(sessionId: string, tenant: string): SseSession {
    const session = this.open.get(sessionId);
    if (session?.tenant === tenant) return session;
    throw new AppError(
      'mcp_session_not_found',
      404,
      `no MCP SSE session ${sessionId.slice(0, 64)} is open on this memory-api replica. SSE sessions live in the ` +
        'process that answered GET /sse: open a new one with GET /sse; behind a load balancer, send each client to ' +
        'one replica (sticky sessions), or use the stateless Streamable HTTP endpoint /mcp, which any replica answers.',
    );
  }

  remove(sessionId: string): void {
    this.open.delete(sessionId);
  }

  /** Ends every stream (shutdown): clients see the stream close and may reconnect elsewhere. */
  async closeAll(): Promise<void> {
    const sessions = [...this.open.values()];
    this.open.clear();
    await Promise.allSettled(sessions.map((session) => session.server.close()));
  }
}
