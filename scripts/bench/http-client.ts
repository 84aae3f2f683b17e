import { Agent, request } from 'node:http';
import { percentile, round } from '../eval/scoring.ts';

/**
 * A minimal keep-alive JSON client on node:http, used for the service and for the HTTP floor
 * alike, so both carry the same client overhead and the ratio between them is fair.
 */
export class JsonClient {
  private readonly agent: Agent;
  private readonly origin: URL;

  constructor(
    baseUrl: string,
    private readonly headers: Record<string, string> = {},
    maxSockets = 32,
  ) {
    this.origin = new URL(baseUrl);
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  post<T = unknown>(path: string, body: unknown): Promise<T> {
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise<T>((resolve, reject) => {
      const req = request(
        {
          agent: this.agent,
          host: this.origin.hostname,
          port: this.origin.port,
          method: 'POST',
          path,
          headers: { ...this.headers, 'content-type': 'application/json', 'content-length': payload.length },
          timeout: 60_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            if ((res.statusCode ?? 0) >= 400)
              reject(new Error(`POST ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`));
            else resolve(JSON.parse(text) as T);
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`POST ${path} timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface LatencyFigures {
  requests: number;
  concurrency: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  /** Requests per second over the whole measured run. */
  throughput: number;
}

/**
 * Runs `requests` calls of `send` from `concurrency` concurrent callers (after `warmup` calls that
 * are not measured) and summarises per-call latency in milliseconds.
 */
export async function measureLatency(
  send: (i: number) => Promise<unknown>,
  options: { requests: number; concurrency: number; warmup?: number },
): Promise<LatencyFigures> {
  for (let i = 0; i < (options.warmup ?? 0); i++) await send(-1 - i);
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < options.requests) {
      const i = next++;
      const t0 = performance.now();
      await send(i);
      samples.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return summariseLatency(samples, options.concurrency, seconds);
}

export function summariseLatency(samples: readonly number[], concurrency: number, seconds: number): LatencyFigures {
  return {
    requests: samples.length,
    concurrency,
    p50: round(percentile(samples, 50)),
    p95: round(percentile(samples, 95)),
    p99: round(percentile(samples, 99)),
    mean: round(samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length)),
    throughput: round(samples.length / Math.max(seconds, 1e-9)),
  };
}
