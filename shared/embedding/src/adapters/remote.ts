import { Agent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { DependencyUnavailableError } from '@hindsight/errors';
import type { Embedder } from '../port.ts';
import { decodeVectorBase64 } from '../vector.ts';
import { validateVectors } from './validate.ts';

export interface RemoteEmbedderSettings {
  /** Base URL of the embedder service, e.g. http://127.0.0.1:8002 */
  url: string;
  timeoutMs?: number;
}

/** Idle kept-alive connections to the service are closed after this long. */
const IDLE_CONNECTION_MS = 30_000;

interface ModelInfo {
  model: string;
  dimension: number;
}

/**
 * Client of the hindsight embedder service (`services/embedder`): `POST /embed` in the compact
 * base64 form, model and dimension learned from `GET /models`. The service's answers carry their
 * model; one that changed under a running client is an error, never silently mixed vectors.
 */
export class RemoteEmbedder implements Embedder {
  private info: ModelInfo | undefined;
  private withoutWordVectors = false;
  private readonly baseUrl: string;
  private readonly origin: URL;
  private readonly basePath: string;
  private readonly timeoutMs: number;
  private readonly agent: Agent;
  private readonly send: typeof httpRequest;

  constructor(settings: RemoteEmbedderSettings) {
    this.baseUrl = settings.url.replace(/\/+$/, '');
    this.origin = new URL(this.baseUrl);
    this.basePath = this.origin.pathname.replace(/\/+$/, '');
    this.timeoutMs = settings.timeoutMs ?? 10_000;
    // Kept-alive connections: each search's query embedding reuses one instead of a new TCP handshake.
    // An idle connection is closed here well before the service's keep-alive timeout (Fastify's
    // 72 s) would close it under a request being sent on it.
    const agentOptions = { keepAlive: true, maxSockets: 64, timeout: IDLE_CONNECTION_MS };
    const secure = this.origin.protocol === 'https:';
    this.agent = secure ? new HttpsAgent(agentOptions) : new Agent(agentOptions);
    this.send = secure ? httpsRequest : httpRequest;
  }

  /** Learns model and dimension from the service; the getters below need one successful call first. */
  static async connect(settings: RemoteEmbedderSettings): Promise<RemoteEmbedder> {
    const embedder = new RemoteEmbedder(settings);
    await embedder.check();
    return embedder;
  }

  get model(): string {
    return this.known().model;
  }

  get dimension(): number {
    return this.known().dimension;
  }

  async check(): Promise<void> {
    const body = await this.call('GET', '/models');
    const model = (body as { model?: unknown }).model;
    const dimension = (body as { dim?: unknown }).dim;
    if (typeof model !== 'string' || typeof dimension !== 'number') {
      throw new DependencyUnavailableError('embedder', `${this.baseUrl}/models answered without model and dim`);
    }
    this.remember({ model, dimension });
    const ready = await this.call('GET', '/ready');
    if ((ready as { status?: unknown }).status !== 'ready') {
      throw new DependencyUnavailableError('embedder', `${this.baseUrl} is not ready`);
    }
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    if (!this.info) await this.check();
    const body = (await this.call('POST', '/embed', {
      texts,
      model: this.info?.model,
      encoding_format: 'base64',
    })) as { model?: unknown; dim?: unknown; vectors?: unknown };
    if (typeof body.model !== 'string' || typeof body.dim !== 'number' || !Array.isArray(body.vectors)) {
      throw new DependencyUnavailableError('embedder', `${this.baseUrl}/embed answered an unexpected body`);
    }
    this.remember({ model: body.model, dimension: body.dim });
    try {
      const raw = body.vectors.map((v) => (typeof v === 'string' ? decodeVectorBase64(v) : v));
      return validateVectors(raw, texts.length, body.dim);
    } catch (error) {
      throw new DependencyUnavailableError('embedder', (error as Error).message, { cause: error });
    }
  }

  /** The service's word alignment of texts with a query (`POST /align`); undefined when its model has none. */
  async align(query: string, texts: readonly string[]): Promise<number[] | undefined> {
    // A model without word vectors stays one: the service is not asked again (its model cannot
    // change under this client, see remember()).
    if (this.withoutWordVectors) return undefined;
    if (texts.length === 0) return [];
    const body = (await this.call('POST', '/align', { query, texts })) as { scores?: unknown };
    if (body.scores === null) {
      this.withoutWordVectors = true;
      return undefined;
    }
    if (
      !Array.isArray(body.scores) ||
      body.scores.length !== texts.length ||
      !body.scores.every((s) => typeof s === 'number' && Number.isFinite(s))
    ) {
      throw new DependencyUnavailableError('embedder', `${this.baseUrl}/align answered an unexpected body`);
    }
    return body.scores as number[];
  }

  /** The service drops these texts' vectors from its own caches (`POST /forget`). */
  async forget(texts: readonly string[]): Promise<number> {
    if (texts.length === 0) return 0;
    const body = (await this.call('POST', '/forget', { texts })) as { forgotten?: unknown };
    return typeof body.forgotten === 'number' ? body.forgotten : 0;
  }

  private known(): ModelInfo {
    if (!this.info) {
      throw new DependencyUnavailableError('embedder', `model not known yet: ${this.baseUrl} has not been reached`);
    }
    return this.info;
  }

  private remember(info: ModelInfo): void {
    if (this.info && (this.info.model !== info.model || this.info.dimension !== info.dimension)) {
      throw new DependencyUnavailableError(
        'embedder',
        `${this.baseUrl} now serves ${info.model} (${info.dimension}), was ${this.info.model} (${this.info.dimension}); restart to re-check the store`,
      );
    }
    this.info = info;
  }

  /** Closes the kept-alive connections to the service. */
  async close(): Promise<void> {
    this.agent.destroy();
  }

  private async call(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<unknown> {
    let response: { status: number; text: string };
    try {
      response = await this.exchange(method, path, payload === undefined ? undefined : JSON.stringify(payload));
    } catch (error) {
      const reason =
        error instanceof RemoteTimeout
          ? `no answer from ${this.baseUrl}${path} within ${this.timeoutMs} ms`
          : `cannot reach ${this.baseUrl}${path} (${(error as { code?: string }).code ?? (error as Error).message})`;
      throw new DependencyUnavailableError('embedder', reason, { cause: error });
    }
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch (error) {
      throw new DependencyUnavailableError('embedder', `${path} answered HTTP ${response.status} with non-JSON`, {
        cause: error,
      });
    }
    if (response.status < 200 || response.status >= 300) {
      const message = (body as { error?: { message?: unknown } }).error?.message;
      throw new DependencyUnavailableError(
        'embedder',
        `${path} answered HTTP ${response.status}${typeof message === 'string' ? `: ${message}` : ''}`,
      );
    }
    return body;
  }

  /**
   * One request on a kept-alive connection (node:http: a query's embedding is one small request on
   * every search, and `fetch` cost about three times the time and client CPU per call), answered
   * in full within the timeout or failed.
   */
  private exchange(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
  ): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(body);
      const req = this.send(
        {
          agent: this.agent,
          // An IPv6 literal without its brackets.
          hostname: this.origin.hostname.replace(/^\[|\]$/g, ''),
          port: this.origin.port,
          method,
          path: `${this.basePath}${path}`,
          headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', (error) => {
            clearTimeout(timer);
            reject(error);
          });
        },
      );
      const timer = setTimeout(() => req.destroy(new RemoteTimeout()), this.timeoutMs);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(payload);
    });
  }
}

class RemoteTimeout extends Error {
  constructor() {
    super('the embedder service did not answer in time');
    this.name = 'TimeoutError';
  }
}
