import type { Embedder } from '@hindsight/embedding';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const Readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional() })),
});

export interface OperationsOptions {
  embedder: Embedder;
  /** A remote provider is probed at most this often; probes in between reuse the last result. */
  readinessCacheMs: number;
  readinessTimeoutMs: number;
}

/** `/health`: the process answers. `/ready`: the provider can embed now. */
export function operationsRoutes(options: OperationsOptions): FastifyPluginAsyncZod {
  let last: { at: number; error: string | undefined } | undefined;
  const probe = async (): Promise<string | undefined> => {
    if (last && Date.now() - last.at < options.readinessCacheMs) return last.error;
    let error: string | undefined;
    try {
      await withTimeout(options.embedder.check(), options.readinessTimeoutMs);
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause);
    }
    last = { at: Date.now(), error };
    return error;
  };

  return async (app) => {
    app.get('/health', { schema: { response: { 200: z.object({ status: z.literal('ok') }) } } }, async () => ({
      status: 'ok' as const,
    }));

    app.get('/ready', { schema: { response: { 200: Readiness, 503: Readiness } } }, async (_request, reply) => {
      const error = await probe();
      reply.status(error === undefined ? 200 : 503);
      return {
        status: error === undefined ? ('ready' as const) : ('not_ready' as const),
        checks: { provider: error === undefined ? { ok: true } : { ok: false, error } },
      };
    });
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`provider check gave no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
