import { SearchRequest, SearchResponse, WriteItem, WriteResult } from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { MemoryService } from '../memory/service.ts';
import { ErrorResponses } from './schemas.ts';
import { type Idempotency, idempotent, writeStatusCode } from './write-reply.ts';

/**
 * The short forms `/store` and `/retrieve`. `/store` takes exactly one batch item of
 * `/v1/memories` (`WriteItem`: the owner and time also from `metadata`).
 */
export function shortFormRoutes(memory: MemoryService, idempotency: Idempotency): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/store',
      {
        schema: {
          tags: ['short form'],
          summary: 'Store one memory (memory_type: a layer or a category)',
          body: WriteItem,
          response: { 200: WriteResult, 201: WriteResult, ...ErrorResponses },
        },
      },
      async (request, reply) =>
        idempotent(idempotency, request, reply, async () => {
          const [result] = (await memory.write({ tenant: request.tenant, via: 'api', trusted: request.trusted }, [
            request.body,
          ])) as [WriteResult];
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
