import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BuiltinEmbedder } from '../../src/index.ts';

/**
 * A small local HTTP server speaking the real OpenAI `POST /v1/embeddings` protocol (request
 * `{model, input, encoding_format}`, answer `{object: 'list', data: [{object: 'embedding',
 * index, embedding}], model, usage}`), with scriptable failures for the resilience tests.
 * Vectors come from the built-in embedder, deliberately not unit length, so clients must normalise.
 */
export type Fault =
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'wrong-count' }
  | { kind: 'wrong-dimension' }
  | { kind: 'non-numeric' }
  | { kind: 'not-json' }
  | { kind: 'shuffled' };

export interface RecordedRequest {
  model: unknown;
  input: unknown;
  encodingFormat: unknown;
  authorization: string | undefined;
}

export class OpenAiCompatibleTestServer {
  readonly requests: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private readonly server: Server;
  private readonly vectors: BuiltinEmbedder;

  constructor(readonly dimension = 48) {
    this.vectors = new BuiltinEmbedder({ dimension });
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Faults apply to the next requests, one each, in order. */
  inject(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
      return send(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    this.requests.push({
      model: body.model,
      input: body.input,
      encodingFormat: body.encoding_format,
      authorization: req.headers.authorization,
    });
    const inputs = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
    const fault = this.faults.shift();
    if (fault?.kind === 'status') {
      const headers: Record<string, string> =
        fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
      return send(res, fault.status, { error: { message: `injected ${fault.status}`, type: 'server_error' } }, headers);
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'not-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{"data": [');
    }
    const embeddings = (await this.vectors.embed(inputs)).map((v) => Array.from(v, (x) => x * 3));
    if (fault?.kind === 'wrong-count') embeddings.pop();
    if (fault?.kind === 'wrong-dimension') embeddings[0]?.pop();
    const data: Array<{ object: string; index: number; embedding: unknown }> = embeddings.map((embedding, index) => ({
      object: 'embedding',
      index,
      embedding: fault?.kind === 'non-numeric' && index === 0 ? embedding.map(() => 'x') : embedding,
    }));
    if (fault?.kind === 'shuffled') data.reverse();
    send(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
