import type { RawRequest, RawResponse } from './http.ts';

/** A stack frame, a source path or a module path: internals that must never reach a client. */
const INTERNALS =
  /\bat [^\s()]+ \([^)]*:\d+:\d+\)|\.[cm]?[jt]s:\d+:\d+|node_modules|\/work\/|ZodError|SqliteError|ReplyError/;

/** What is wrong with an answer whatever the request was: a 5xx, no answer, internals, a bare error. */
export function answerProblems(request: RawRequest, response: RawResponse): string[] {
  const problems: string[] = [];
  if (response.status === 0) problems.push(`no answer (${response.body})`);
  else if (response.status >= 500) problems.push(`answered ${response.status}`);
  if (INTERNALS.test(response.body)) problems.push('internals (stack, path or error class) in the answer');
  if (response.status >= 400 && response.contentType.includes('json') && !isErrorEnvelope(request, response.body)) {
    problems.push('an error answer without the {error: {code, message}} envelope');
  }
  return problems;
}

function isErrorEnvelope(request: RawRequest, body: string): boolean {
  const parsed = parse(body) as { error?: { code?: unknown; message?: unknown } } | undefined;
  if (typeof parsed?.error?.message !== 'string') return false;
  // JSON-RPC errors on /mcp carry a numeric code; HTTP-level refusals everywhere the service's string codes.
  const code = typeof parsed.error.code;
  return code === 'string' || (code === 'number' && request.path.startsWith('/mcp'));
}

/**
 * Whether the request was refused, so that nothing may have changed: any 4xx, and on `/mcp`
 * a JSON-RPC error or an `isError` tool result (every message of a batch refused).
 */
export function wasRejected(request: RawRequest, response: RawResponse): boolean {
  if (response.status >= 400) return true;
  if (!request.path.startsWith('/mcp') || response.status !== 200) return false;
  const parsed = parse(response.body);
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return (
    messages.length > 0 &&
    messages.every((m) => {
      const message = m as { error?: unknown; result?: { isError?: boolean } } | undefined;
      return message?.error !== undefined || message?.result?.isError === true;
    })
  );
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The request as a reader can replay it (curl-like), bodies cut to a readable length. */
export function describeRequest(request: RawRequest): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `-H '${name}: ${value.length > 80 ? `${value.slice(0, 80)}…` : value}'`)
    .join(' ');
  const body =
    request.body === undefined
      ? ''
      : Buffer.isBuffer(request.body)
        ? ` --data-binary (hex) ${request.body.toString('hex').slice(0, 200)}`
        : ` --data ${JSON.stringify(request.body.length > 4000 ? `${request.body.slice(0, 4000)}… (${request.body.length} chars)` : request.body)}`;
  const path = request.path.length > 300 ? `${request.path.slice(0, 300)}…` : request.path;
  return `${request.method} ${path} ${headers}${body}`;
}
