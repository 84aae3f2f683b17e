import { seededRandom } from '@hindsight/testing';
import { round } from '../eval/scoring.ts';
import { type JsonClient, type LatencyFigures, summariseLatency } from './http-client.ts';
import type { Workload } from './workload.ts';

/** The operations of issue 18's mixed load, and the share of requests each takes. */
export const MIXED_SHARES = { retrieve: 0.8, store: 0.15, turn: 0.05 } as const;
type Operation = keyof typeof MIXED_SHARES;

export interface MixedLoadFigures {
  requests: number;
  concurrency: number;
  seconds: number;
  /** Requests of every kind per second over the whole measured run. */
  throughput: number;
  retrieve: LatencyFigures;
  store: LatencyFigures;
  turn: LatencyFigures;
  /** `/retrieve` answers that found nothing (the maintainers measure with every answer non-empty). */
  emptyAnswers: number;
}

export interface MixedLoadOptions {
  requests: number;
  concurrency: number;
  warmup: number;
  topK: number;
  /** Sessions the turns go to (each belongs to one user of the workload). */
  sessions: number;
  /** The next serial of a memory or turn, shared with the rest of the run so no text repeats. */
  nextSerial: () => number;
  seed?: number;
}

/**
 * Issue 18's mixed load: `concurrency` clients send `requests` requests between them, each drawn
 * (seeded, so runs send the same sequence) 80 % `/retrieve`, 15 % single `/store` writes and 5 %
 * session turns (`POST /v1/sessions/:id/turns`), as agents reading, remembering and talking at once.
 * Latency is measured per operation; throughput counts every request.
 */
export async function measureMixedLoad(
  client: JsonClient,
  workload: Workload,
  options: MixedLoadOptions,
): Promise<MixedLoadFigures> {
  const random = seededRandom(options.seed ?? 18);
  const total = options.warmup + options.requests;
  const operations: Operation[] = Array.from({ length: total }, () => {
    const r = random();
    return r < MIXED_SHARES.retrieve ? 'retrieve' : r < MIXED_SHARES.retrieve + MIXED_SHARES.store ? 'store' : 'turn';
  });
  // What each request sends is drawn before the run, so drawing costs nothing measured.
  const bodies = operations.map((operation) => {
    if (operation === 'retrieve') {
      return {
        path: '/retrieve',
        body: { query: workload.query(), user_id: workload.randomUser(), top_k: options.topK },
      };
    }
    if (operation === 'store') {
      return {
        path: '/store',
        body: { content: workload.memory(options.nextSerial()), user_id: workload.randomUser() },
      };
    }
    const session = Math.floor(random() * options.sessions);
    return {
      path: `/v1/sessions/bench-session-${session}/turns`,
      body: {
        user_id: workload.userId(session % workload.users),
        role: 'user',
        content: workload.memory(options.nextSerial()),
      },
    };
  });
  const samples: Record<Operation, number[]> = { retrieve: [], store: [], turn: [] };
  let emptyAnswers = 0;
  const send = async (i: number, measured: boolean) => {
    const { path, body } = bodies[i] as { path: string; body: unknown };
    const operation = operations[i] as Operation;
    const t0 = performance.now();
    const answer = await client.post<{ results?: unknown[] }>(path, body);
    const elapsed = performance.now() - t0;
    if (!measured) return;
    samples[operation].push(elapsed);
    if (operation === 'retrieve' && (answer.results?.length ?? 0) === 0) emptyAnswers += 1;
  };
  // Warm-up with the same concurrency, so sockets and the service's caches are as the run meets them.
  let next = 0;
  const run = async (end: number, measured: boolean) => {
    const worker = async () => {
      while (next < end) await send(next++, measured);
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  };
  await run(options.warmup, false);
  const started = performance.now();
  await run(total, true);
  const seconds = (performance.now() - started) / 1000;
  const figures = (operation: Operation) => summariseLatency(samples[operation], options.concurrency, seconds);
  return {
    requests: options.requests,
    concurrency: options.concurrency,
    seconds: round(seconds),
    throughput: round(options.requests / seconds),
    retrieve: figures('retrieve'),
    store: figures('store'),
    turn: figures('turn'),
    emptyAnswers,
  };
}
