import { MemoryInput, SearchRequest, SearchResponse, WriteResult } from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { MemoryService } from '../memory/service.ts';
import { ErrorResponses } from './schemas.ts';
import { type Idempotency, idempotent, writeStatusCode } from './write-reply.ts';

/**
 * The short forms `/store` and `/retrieve`. `/store` also takes the owner and
 * context from `metadata` (`user_id`, `session_id`, `agent_id`, `timestamp`),
 * which stays in the metadata verbatim.
 */
const StoreBody = MemoryInput.transform((input) => {
  const meta = input.metadata ?? {};
  const text = (key: string) => (typeof meta[key] === 'string' && meta[key] !== '' ? (meta[key] as string) : undefined);
  const out = { ...input };
  out.user_id ??= text('user_id');
  out.session_id ??= text('session_id');
  out.agent_id ??= text('agent_id');
  if (out.occurred_at === undefined) {
    const timestamp = meta.timestamp;
    const parsed =
      typeof timestamp === 'number'
        ? new Date(timestamp < 1e12 ? timestamp * 1000 : timestamp)
        : typeof timestamp === 'string'
          ? new Date(timestamp)
          : undefined;
    if (parsed && !Number.isNaN(parsed.getTime())) out.occurred_at = parsed.toISOString();
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as MemoryInput;
});

export function shortFormRoutes(memory: MemoryService, idempotency: Idempotency): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/store',
      {
        schema: {
          tags: ['short form'],
          summary: 'Store one memory (memory_type: a layer or a category)',
          body: StoreBody,
          response: { 200: WriteResult, 201: WriteResult, ...ErrorResponses },
        },
      },
      async (request, reply) =>
        idempotent(idempotency, request, reply, async () => {
          const [result] = (await memory.write({ tenant: request.tenant, via: 'api' }, [request.body])) as [
            WriteResult,
          ];
          return { statusCode: writeStatusCode(result), body: result };
        }),
    );

    app.post(
      '/retrieve',
      {
        schema: {
          tags: ['short form'],
          summary: 'Retrieve the memories that answer a query, with prompt-ready context',
          body: SearchRequest,
          response: { 200: SearchResponse, ...ErrorResponses },
        },
      },
      async (request) => memory.search(request.tenant, request.body),
    );
  };
}
