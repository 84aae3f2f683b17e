import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

const Readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional() })),
});

/** `/health`: the process answers. `/ready`: every dependency answers too. */
export function healthRoutes(checks: readonly ReadinessCheck[]): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      { config: { access: 'public' }, schema: { tags: ['operations'], response: { 200: z.object({ status: z.literal('ok') }) } } },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/ready',
      { config: { access: 'public' }, schema: { tags: ['operations'], response: { 200: Readiness, 503: Readiness } } },
      async (_request, reply) => {
        const results = await Promise.all(
          checks.map(async (c) => {
            try {
              await withTimeout(c.check(), 2000);
              return [c.name, { ok: true }] as const;
            } catch (error) {
              return [c.name, { ok: false, error: error instanceof Error ? error.message : String(error) }] as const;
            }
          }),
        );
        const ready = results.every(([, r]) => r.ok);
        reply.status(ready ? 200 : 503);
        return { status: ready ? ('ready' as const) : ('not_ready' as const), checks: Object.fromEntries(results) };
      },
    );
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
