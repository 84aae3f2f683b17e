import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const Readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  memory_api: z.object({ ok: z.boolean(), error: z.string().optional() }),
});

/** `/health`: the process answers. `/ready`: memory-api answers over MCP too. */
export function healthRoutes(checkMemoryApi: () => Promise<void>, mode: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      { schema: { response: { 200: z.object({ status: z.literal('ok'), mode: z.string() }) } } },
      async () => ({
        status: 'ok' as const,
        mode,
      }),
    );
    app.get('/ready', { schema: { response: { 200: Readiness, 503: Readiness } } }, async (_request, reply) => {
      try {
        await checkMemoryApi();
        return { status: 'ready' as const, memory_api: { ok: true } };
      } catch (error) {
        reply.status(503);
        return {
          status: 'not_ready' as const,
          memory_api: { ok: false, error: error instanceof Error ? error.message : String(error) },
        };
      }
    });
  };
}
