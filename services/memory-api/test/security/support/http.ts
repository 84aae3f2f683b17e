import { Agent, request as httpRequest } from 'node:http';

/** One request exactly as it goes on the wire: the path byte for byte, the body as given. */
export interface RawRequest {
  method: string;
  /** Already percent-encoded; sent unchanged (no normalisation of `/./`, `%2e`, …). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Real HTTP to a listening server over a keep-alive agent, bounded per request. A
 * connection reset or a timeout is reported as status 0 (the server dropped the request),
 * which the checks treat like a 5xx: a client must always get an answer.
 */
export class RawClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });

  constructor(readonly port: number) {}

  send(request: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
    return new Promise((resolve) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: this.port,
          method: request.method,
          path: request.path,
          // Framed explicitly: Node sends a GET or DELETE body unframed, which the server reads as the next request.
          headers:
            request.body === undefined
              ? request.headers
              : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          agent: this.agent,
        },
        (res) => {
          const contentType = String(res.headers['content-type'] ?? '');
          const stream = contentType.startsWith('text/event-stream');
          const chunks: Buffer[] = [];
          const answer = () => ({
            status: res.statusCode ?? 0,
            contentType,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            // A stream stays open: its answer is the status and the first event, then the client hangs up.
            if (stream && Buffer.concat(chunks).includes('\n\n')) {
              resolve(answer());
              req.destroy();
            }
          });
          res.on('end', () => resolve(answer()));
          res.on('error', (error) => resolve({ status: 0, contentType: '', body: String(error) }));
        },
      );
      req.on('error', (error) => resolve({ status: 0, contentType: '', body: String(error) }));
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Percent-encodes every code unit as a client library that does not check well-formedness
 * would: UTF-8, with a lone surrogate written as its three WTF-8 bytes (`\uD800` → `%ED%A0%80`).
 * `encodeURIComponent` throws on those; real clients still send them.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    let codePoint = unit;
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      codePoint = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    const char = String.fromCodePoint(codePoint);
    if (/^[A-Za-z0-9\-_.~]$/.test(char)) {
      out += char;
      continue;
    }
    for (const byte of wtf8(codePoint)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function wtf8(codePoint: number): number[] {
  if (codePoint < 0x80) return [codePoint];
  if (codePoint < 0x800) return [0xc0 | (codePoint >> 6), 0x80 | (codePoint & 0x3f)];
  if (codePoint < 0x10000) {
    return [0xe0 | (codePoint >> 12), 0x80 | ((codePoint >> 6) & 0x3f), 0x80 | (codePoint & 0x3f)];
  }
  return [
    0xf0 | (codePoint >> 18),
    0x80 | ((codePoint >> 12) & 0x3f),
    0x80 | ((codePoint >> 6) & 0x3f),
    0x80 | (codePoint & 0x3f),
  ];
}
