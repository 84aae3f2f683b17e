import { isAppError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A successful tool result: structured content plus its JSON text for clients without structured support. */
export function toolSuccess(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * The one place MCP tool failures are shaped. The model sees an actionable
 * message; causes of server-side failures go to the log, never to the model.
 */
export function toolFailure(tool: string, error: unknown, log: Logger): CallToolResult {
  return { content: [{ type: 'text', text: failureMessage(tool, error, log) }], isError: true };
}

/** Runs a tool body and answers with its structured result or an `isError` result. */
export async function runTool(
  tool: string,
  log: Logger,
  body: () => Promise<Record<string, unknown>>,
): Promise<CallToolResult> {
  try {
    return toolSuccess(await body());
  } catch (error) {
    return toolFailure(tool, error, log);
  }
}

function failureMessage(tool: string, error: unknown, log: Logger): string {
  if (isAppError(error)) {
    if (error.status < 500) {
      log.info({ tool, code: error.code }, 'mcp tool call refused');
      return `${tool} refused: ${error.message.replace(/\.+$/, '')}. ${HINTS[error.code] ?? 'Fix the arguments and call again.'}`;
    }
    if (error.code === 'busy') {
      log.info({ tool, code: error.code }, 'mcp tool call refused: the user has another write in progress');
      return `${tool} could not run because another write for this user is still in progress. Retry in a second.`;
    }
    if (error.code === 'dependency_unavailable') {
      log.warn({ tool, err: error }, 'mcp tool call failed: a dependency is unavailable');
      return `${tool} could not run because the memory service is temporarily unavailable. Retry in a few seconds, or continue without memory.`;
    }
  }
  log.error({ tool, err: error }, 'mcp tool call failed');
  return `${tool} failed because of an internal error (logged on the server). Retry later, or continue without memory.`;
}

const HINTS: Record<string, string> = {
  validation_failed: 'Fix the arguments and call again.',
  content_rejected:
    'Store a short plain statement of the fact instead (no instructions, role text, tool-call JSON, raw dumps or secrets).',
  not_found: 'Search first to find the id of an existing memory.',
  unauthorized:
    'The MCP client needs a valid API key ("Authorization: Bearer <key>", or HINDSIGHT_API_KEY for the stdio server).',
  forbidden: 'The API key in use may not do this.',
  rate_limited: 'Wait a few seconds, then retry.',
  conflict: 'Search again and retry with the current state.',
  write_conflict: 'Nothing was stored; call again with the same arguments.',
};
