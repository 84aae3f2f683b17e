import { BadRequestError, ForbiddenError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import { Identifier } from '@hindsight/memory-model';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type SessionForgetting, serviceMemoryAccess } from '../mcp/access.ts';
import { type HostPolicy, hostAllowed, hostPolicy, loopbackPolicy } from '../mcp/allowed-hosts.ts';
import { connectScreened } from '../mcp/screen-requests.ts';
import { createMcpServer } from '../mcp/server.ts';
import { SseSessions } from '../mcp/sse-sessions.ts';
import type { MemoryService } from '../memory/service.ts';
import { ErrorBody, ErrorResponses } from './schemas.ts';

const UserIdHeader = z.string().trim().pipe(Identifier);

export interface McpRouteOptions {
  memory: MemoryService;
  /** Sessions' working memory, when this deployment has it (forgetting a session clears it). */
  sessions?: SessionForgetting;
  /** `MCP_ALLOWED_HOSTS` as configured. */
  allowedHosts: string | undefined;
  /** How often an open SSE stream carries a comment line, so proxies do not drop it as idle. */
  sseKeepAliveMs?: number;
}

const MessagesQuery = z.object({ sessionId: Identifier }).strict();
const MessageAccepted = z.object({ accepted: z.literal(true) });

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: every POST gets a fresh server and
 * transport bound to the tenant of its API key (the auth hook already checked it).
 * Nothing lives between requests, so any replica can answer any call and there is no
 * session table to expire. JSON responses, no SSE: every tool answers in one reply.
 *
 * Also the legacy HTTP+SSE transport for clients configured with `"transport": "sse"`:
 * `GET /sse` opens a stream bound to the key's tenant (and X-User-Id), `POST
 * /messages?sessionId=…` carries that client's requests, whose answers go down its
 * stream. Those sessions live in this process only (see SseSessions).
 */
export function mcpRoutes(options: McpRouteOptions): FastifyPluginAsyncZod {
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
        throw new ForbiddenError(`Host "${host ?? ''}" may not use MCP; add it to MCP_ALLOWED_HOSTS`);
      }
    };
    const serverFor = (request: FastifyRequest, log: Logger) => {
      const userId = userIdOf(request);
      return {
        userId,
        server: createMcpServer({
          access: serviceMemoryAccess(options.memory, request.tenant, options.sessions),
          log,
          ...(userId ? { userId } : {}),
        }),
      };
    };

    app.post(
      '/mcp',
      { onRequest: checkHost, schema: { tags: ['mcp'], summary: 'MCP Streamable HTTP (JSON-RPC)' } },
      async (request, reply) => {
        const log = request.log as FastifyBaseLogger as Logger;
        const { server } = serverFor(request, log);
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

    const sse = new SseSessions();
    const keepAliveMs = options.sseKeepAliveMs ?? 25_000;
    // Open streams would hold shutdown up: end them first, clients reconnect to another replica.
    app.addHook('preClose', () => sse.closeAll());

    app.get(
      '/sse',
      {
        onRequest: checkHost,
        schema: { tags: ['mcp'], summary: 'MCP over HTTP+SSE (legacy): opens the event stream of one session' },
      },
      async (request, reply) => {
        const log = request.log as FastifyBaseLogger as Logger;
        const { server, userId } = serverFor(request, log);
        const transport = new SSEServerTransport('/messages', reply.raw);
        transport.onerror = (error) => log.warn({ err: error }, 'mcp sse transport error');
        const sessionId = transport.sessionId;
        reply.hijack();
        // Proxies that buffer responses (nginx) would hold the events back.
        reply.raw.setHeader('X-Accel-Buffering', 'no');
        const keepAlive = setInterval(() => reply.raw.write(': keep-alive\n\n'), keepAliveMs);
        keepAlive.unref();
        reply.raw.on('close', () => {
          clearInterval(keepAlive);
          sse.remove(sessionId);
          server.close().catch((error: unknown) => log.error({ err: error }, 'closing an mcp sse session failed'));
          log.info({ sessionId }, 'mcp sse session ended');
        });
        sse.add({ transport, server, tenant: request.tenant, ...(userId ? { userId } : {}) });
        await connectScreened(server, transport, log);
        log.info({ sessionId, sessions: sse.size }, 'mcp sse session opened');
      },
    );

    app.post(
      '/messages',
      {
        onRequest: checkHost,
        schema: {
          tags: ['mcp'],
          summary: 'MCP over HTTP+SSE (legacy): one JSON-RPC message of a session; the answer comes down its stream',
          querystring: MessagesQuery,
          response: { 202: MessageAccepted, 403: ErrorBody, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const session = sse.find(request.query.sessionId, request.tenant);
        const userId = userIdOf(request);
        if (userId !== undefined && userId !== session.userId) {
          throw new ForbiddenError('X-User-Id differs from the user this SSE session was opened for');
        }
        const message = JSONRPCMessageSchema.safeParse(request.body);
        if (!message.success) {
          throw new BadRequestError('the body must be one JSON-RPC 2.0 message (request, notification or response)');
        }
        await session.transport.handleMessage(message.data, { requestInfo: { headers: request.headers } });
        return reply.status(202).send({ accepted: true });
      },
    );
  };
}

/** X-User-Id, when given: one user id. */
function userIdOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-user-id'];
  if (header === undefined) return undefined;
  const parsed = UserIdHeader.safeParse(header);
  if (!parsed.success)
    throw new BadRequestError(
      'X-User-Id must be one user id: 1–128 characters of well-formed text, no control characters',
    );
  return parsed.data;
}
