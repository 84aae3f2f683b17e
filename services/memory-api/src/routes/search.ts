import { ForgetRequest, ForgetResponse, SearchRequest, SearchResponse } from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { MemoryService } from '../memory/service.ts';
import { ErrorResponses } from './schemas.ts';

export function searchRoutes(memory: MemoryService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/search',
      {
        schema: {
          tags: ['search'],
          summary: 'Hybrid search (dense + BM25, RRF, rerank) within a token budget',
          body: SearchRequest,
          response: { 200: SearchResponse, ...ErrorResponses },
        },
      },
      async (request) => memory.search(request.tenant, request.body),
    );

    app.post(
      '/v1/forget',
      {
        schema: {
          tags: ['memories'],
          summary: 'Forget every memory matching the filters (`dry_run` only counts)',
          body: ForgetRequest,
          response: { 200: ForgetResponse, ...ErrorResponses },
        },
      },
      async (request) => memory.forget(request.tenant, request.body),
    );
  };
}
