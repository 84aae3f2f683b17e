import type { Logger } from '@hindsight/logger';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** The requests whose params the SDK validates with a schema; its failure text is a raw zod issue list. */
const REQUEST_SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
} as const;

/**
 * Connects `server` to `transport` with every request screened first. A request the SDK would
 * refuse with its own schema (e.g. `tools/call` with `"arguments": "x"`) is answered here with an
 * actionable message instead of the SDK's internal error carrying a zod issue list (DESIGN §6):
 * a tool call with unusable arguments gets an `isError` tool result, as any other bad argument
 * does; any other malformed request gets JSON-RPC `-32602 Invalid params` naming the field.
 */
export async function connectScreened(server: McpServer, transport: Transport, log: Logger): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const answer = isJSONRPCRequest(message) ? screenRequest(message) : undefined;
    if (answer === undefined || !isJSONRPCRequest(message)) {
      deliver?.(message, extra);
      return;
    }
    log.info({ method: message.method }, 'mcp request refused before the server: malformed params');
    transport
      .send(answer, { relatedRequestId: message.id })
      .catch((error: unknown) => log.warn({ err: error }, 'answering a malformed mcp request failed'));
  };
}

/** The answer to a request whose params cannot be used, or undefined when the server should handle it. */
export function screenRequest(request: JSONRPCRequest): JSONRPCMessage | undefined {
  const schema = REQUEST_SCHEMAS[request.method as keyof typeof REQUEST_SCHEMAS];
  if (!schema) return undefined;
  const parsed = schema.safeParse(request);
  if (parsed.success) return undefined;
  const params = request.params as unknown;
  if (request.method === 'tools/call' && isPlainObject(params) && typeof params.name === 'string') {
    const tool = params.name.slice(0, 64);
    return {
      jsonrpc: '2.0',
      id: request.id,
      result: {
        content: [
          {
            type: 'text',
            text:
              `${tool} refused: arguments must be a JSON object of the tool's parameters ` +
              `(got ${describeValue(params.arguments)}), e.g. {"query": "..."}. Fix the arguments and call again.`,
          },
        ],
        isError: true,
      },
    };
  }
  return {
    jsonrpc: '2.0',
    id: request.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: invalidParamsMessage(request.method, parsed.error.issues[0]?.path ?? []),
    },
  };
}

/** Names the first unusable field, never the validator's issue list. */
function invalidParamsMessage(method: string, path: ReadonlyArray<PropertyKey>): string {
  if (method === 'tools/call') {
    return 'Invalid params: tools/call takes {"name": "<a tool name from tools/list>", "arguments": {...}}';
  }
  const field = path.map(String).join('.') || 'params';
  return `Invalid params for ${method}: ${field} is missing or has the wrong type`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
