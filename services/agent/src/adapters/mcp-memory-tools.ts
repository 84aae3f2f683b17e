import { AppError, DependencyUnavailableError, describeError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { MemoryTools, ToolOutcome, ToolSpec } from '../conversation/ports.ts';
import { MemoryApiKeyRefusedError } from './memory-api-access.ts';

export interface McpMemoryToolsOptions {
  /** memory-api's base URL; the MCP endpoint is `/mcp` under it. */
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  log: Logger;
  /** Open MCP connections kept (one per recent user, least recently used closed first). */
  maxConnections?: number;
}

/** The connection key for calls that act for no user (tools/list, ping). */
const NO_USER = '';

/**
 * memory-api's tools through the MCP SDK `Client` over Streamable HTTP. Each user gets
 * a connection carrying `Authorization: Bearer` and `X-User-Id`, so the server scopes
 * every call to that user whatever the arguments say. A call that fails below the
 * protocol (memory-api restarted, connection reset) drops the connection and is retried
 * once on a fresh one; if that fails too, memory-api is reported unavailable.
 */
export class McpMemoryTools implements MemoryTools {
  private readonly connections = new Map<string, Promise<Client>>();
  private tools: ToolSpec[] | undefined;
  private readonly endpoint: URL;
  private readonly maxConnections: number;

  constructor(private readonly options: McpMemoryToolsOptions) {
    this.endpoint = new URL('/mcp', options.baseUrl);
    this.maxConnections = options.maxConnections ?? 64;
  }

  async list(): Promise<ToolSpec[]> {
    if (!this.tools) {
      const { tools } = await this.withClient(NO_USER, (client) => client.listTools(undefined, this.requestOptions()));
      this.tools = tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema }));
    }
    return this.tools;
  }

  async call(userId: string, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const result = (await this.withClient(userId, (client) =>
      client.callTool({ name, arguments: args }, undefined, this.requestOptions()),
    )) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    const outcome: ToolOutcome = { isError: result.isError === true, text };
    if (result.structuredContent) outcome.structured = result.structuredContent;
    return outcome;
  }

  async check(): Promise<void> {
    await this.withClient(NO_USER, (client) => client.ping(this.requestOptions()));
  }

  async close(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(open.map((connection) => this.closeConnection(connection)));
  }

  private requestOptions() {
    return { timeout: this.options.timeoutMs };
  }

  private async withClient<T>(userId: string, work: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const connection = this.connection(userId);
      let client: Client;
      try {
        client = await connection;
      } catch (error) {
        this.forget(userId, connection);
        throw unavailable(error);
      }
      try {
        return await work(client);
      } catch (error) {
        if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
          if (error.code === ErrorCode.RequestTimeout) throw unavailable(error);
          throw new AppError('mcp_protocol_error', 502, `memory-api answered an MCP error: ${error.message}`);
        }
        this.forget(userId, connection);
        void this.closeConnection(connection);
        if (attempt >= 2) throw unavailable(error);
        this.options.log.warn({ err: error }, 'MCP connection to memory-api broke; reconnecting');
      }
    }
  }

  private connection(userId: string): Promise<Client> {
    const existing = this.connections.get(userId);
    if (existing) {
      // Most recently used last: eviction takes the first.
      this.connections.delete(userId);
      this.connections.set(userId, existing);
      return existing;
    }
    const created = this.connect(userId);
    this.connections.set(userId, created);
    while (this.connections.size > this.maxConnections) {
      const [oldestUser, oldest] = this.connections.entries().next().value as [string, Promise<Client>];
      this.connections.delete(oldestUser);
      void this.closeConnection(oldest);
    }
    return created;
  }

  /** Closing a connection that is going away anyway: a failure is worth a debug line, nothing more. */
  private async closeConnection(connection: Promise<Client>): Promise<void> {
    try {
      await (await connection).close();
    } catch (error) {
      this.options.log.debug({ err: error }, 'closing an MCP connection failed');
    }
  }

  private forget(userId: string, connection: Promise<Client>): void {
    if (this.connections.get(userId) === connection) this.connections.delete(userId);
    // The tool list may change with the server that comes back.
    this.tools = undefined;
  }

  private async connect(userId: string): Promise<Client> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (userId !== NO_USER) headers['x-user-id'] = userId;
    const client = new Client({ name: 'hindsight-agent', version: '0.1.0' });
    client.onerror = (error) => this.options.log.debug({ err: error }, 'MCP client transport error');
    await client.connect(
      new StreamableHTTPClientTransport(this.endpoint, { requestInit: { headers } }),
      this.requestOptions(),
    );
    return client;
  }
}

function unavailable(error: unknown): DependencyUnavailableError {
  if (error instanceof DependencyUnavailableError) return error;
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    return new MemoryApiKeyRefusedError({ cause: error });
  }
  return new DependencyUnavailableError('memory-api', describeError(error), { cause: error });
}
