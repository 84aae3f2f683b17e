import { BadRequestError, ForbiddenError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type SessionForgetting, serviceMemoryAccess } from '../mcp/access.ts';
import { type HostPolicy, hostAllowed, hostPolicy, loopbackPolicy } from '../mcp/allowed-hosts.ts';
import { connectScreened } from '../mcp/screen-requests.ts';
import { createMcpServer } from '../mcp/server.ts';
import type { MemoryService } from '../memory/service.ts';

const UserIdHeader = z.string().trim().min(1).max(128);

export interface McpRouteOptions {
  memory: MemoryService;
  /** Sessions' working memory, when this deployment has it (forgetting a session clears it). */
  sessions?: SessionForgetting;
  /** `MCP_ALLOWED_HOSTS` as configured. */
  allowedHosts: string | undefined;
}

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: every POST gets a fresh server and
 * transport bound to the tenant of its API key (the auth hook already checked it).
 * Nothing lives between requests, so any replica can answer any call and there is no
 * session table to expire. JSON responses, no SSE: every tool answers in one reply.
 */
export function mcpRoutes(options: McpRouteOptions): FastifyPluginAsync {
  return async (app) => {
    const configured = hostPolicy(options.allowedHosts);
    let listening: HostPolicy | undefined;
    const policy = (request: FastifyRequest): HostPolicy => {
      if (configured) return configured;
      listening ??= loopbackPolicy(request.socket.localPort ?? 0);
      return listening;
    };

    const checkHost = async (request: FastifyRequest) => {
      const host = request.headers.host;
      if (!hostAllowed(policy(request), host)) {
        throw new ForbiddenError(`Host "${host ?? ''}" may not use /mcp; add it to MCP_ALLOWED_HOSTS`);
      }
    };

    app.post(
      '/mcp',
      { onRequest: checkHost, schema: { tags: ['mcp'], summary: 'MCP Streamable HTTP (JSON-RPC)' } },
      async (request, reply) => {
        const userHeader = request.headers['x-user-id'];
        let userId: string | undefined;
        if (userHeader !== undefined) {
          const parsed = UserIdHeader.safeParse(userHeader);
          if (!parsed.success) throw new BadRequestError('X-User-Id must be one user id of 1–128 characters');
          userId = parsed.data;
        }
        const log = request.log as FastifyBaseLogger as Logger;
        const server = createMcpServer({
          access: serviceMemoryAccess(options.memory, request.tenant, options.sessions),
          log,
          ...(userId ? { userId } : {}),
        });
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        transport.onerror = (error) => log.warn({ err: error }, 'mcp transport error');
        reply.raw.on('close', () => {
          transport.close().catch((error: unknown) => log.error({ err: error }, 'closing an mcp transport failed'));
          server.close().catch((error: unknown) => log.error({ err: error }, 'closing an mcp server failed'));
        });
        await connectScreened(server, transport, log);
        // The transport writes the response itself.
        reply.hijack();
        await transport.handleRequest(request.raw, reply.raw, request.body);
      },
    );

    // Stateless mode has no server-initiated stream to open and no session to delete.
    const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply
        .status(405)
        .header('allow', 'POST')
        .send({
          error: { code: 'method_not_allowed', message: '/mcp is stateless: send JSON-RPC requests with POST' },
        });
    app.get('/mcp', { onRequest: checkHost, schema: { hide: true } }, notAllowed);
    app.delete('/mcp', { onRequest: checkHost, schema: { hide: true } }, notAllowed);
  };
}
