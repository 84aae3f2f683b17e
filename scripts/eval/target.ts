import { MemoryApiClient } from '@hindsight/memory-client';
import { type MemoryApiProcess, spawnMemoryApi } from '@hindsight/testing';

/** The memory-api an eval talks to: one already running (`--url`) or a fresh child process. */
export interface EvalTarget {
  client: MemoryApiClient;
  url: string;
  spawned: boolean;
  /** Stops the child process (and removes what it owned); nothing for a service given by URL. */
  close(): Promise<void>;
}

export interface EvalTargetOptions {
  url?: string;
  apiKey?: string;
  /** Environment of a spawned memory-api (ignored with `url`). */
  env?: Record<string, string>;
}

export async function openEvalTarget(options: EvalTargetOptions): Promise<EvalTarget> {
  const service: MemoryApiProcess | undefined = options.url
    ? undefined
    : await spawnMemoryApi(options.env ? { env: options.env } : {});
  const url = options.url ?? (service as MemoryApiProcess).url;
  const client = new MemoryApiClient({
    baseUrl: url,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    timeoutMs: 120_000,
  });
  return { client, url, spawned: service !== undefined, close: async () => service?.stop() };
}

/** A user-id namespace per run, so a shared service (`--url`) never mixes two runs' memories. */
export function evalRunId(): string {
  return `eval-${Date.now().toString(36)}`;
}

/** A user id memory-api accepts, built from a run id and dataset names. */
export function evalUserId(...parts: string[]): string {
  return parts
    .join('-')
    .replace(/[^A-Za-z0-9_.:-]/g, '_')
    .slice(0, 128);
}
