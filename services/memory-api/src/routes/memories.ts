import {
  HistoryView,
  ListQuery,
  MemoryBatchInput,
  MemoryList,
  MemoryPatch,
  MemoryRecord,
  WriteBatchResult,
  WriteItem,
  WriteResult,
} from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MemoryService } from '../memory/service.ts';
import { ErrorResponses, IdParams } from './schemas.ts';
import { type Idempotency, idempotent, writeStatusCode } from './write-reply.ts';

const HistoryQuery = z
  .object({
    /** Memories per page (this one and those it superseded, back in time). */
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(16_384).optional(),
  })
  .strict();

export function memoryRoutes(memory: MemoryService, idempotency: Idempotency): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/memories',
      {
        schema: {
          tags: ['memories'],
          summary: 'Write one memory, or a batch `{items: [...]}` (≤ 1000, all-or-nothing)',
          body: z.union([MemoryBatchInput, WriteItem]),
          response: {
            200: z.union([WriteResult, WriteBatchResult]),
            201: z.union([WriteResult, WriteBatchResult]),
            ...ErrorResponses,
          },
        },
      },
      async (request, reply) =>
        idempotent<WriteResult | { items: WriteResult[] }>(idempotency, request, reply, async () => {
          const body = request.body;
          if ('items' in body) {
            const items = await memory.write(
              { tenant: request.tenant, via: 'api', trusted: request.trusted },
              body.items,
            );
            return { statusCode: items.some((i) => writeStatusCode(i) === 201) ? 201 : 200, body: { items } };
          }
          const [result] = (await memory.write({ tenant: request.tenant, via: 'api', trusted: request.trusted }, [
            body,
          ])) as [WriteResult];
          return { statusCode: writeStatusCode(result), body: result };
        }),
    );

    app.get(
      '/v1/memories',
      {
        schema: {
          tags: ['memories'],
          summary: 'List memories with filters and cursor pagination',
          querystring: ListQuery,
          response: { 200: MemoryList, ...ErrorResponses },
        },
      },
      async (request) => {
        const page = await memory.list(request.tenant, request.query);
        return { items: page.items, next_cursor: page.nextCursor };
      },
    );

    app.get(
      '/v1/memories/:id',
      { schema: { tags: ['memories'], params: IdParams, response: { 200: MemoryRecord, ...ErrorResponses } } },
      async (request) => memory.get(request.tenant, request.params.id),
    );

    app.patch(
      '/v1/memories/:id',
      {
        schema: {
          tags: ['memories'],
          summary: 'Edit a memory; the previous text is kept in its history',
          params: IdParams,
          body: MemoryPatch,
          response: { 200: MemoryRecord, ...ErrorResponses },
        },
      },
      async (request) => memory.patch(request.tenant, request.params.id, request.body),
    );

    app.delete(
      '/v1/memories/:id',
      {
        schema: {
          tags: ['memories'],
          summary:
            'Forget one memory for good; the memories it superseded take its place (active again, or superseded by its successor)',
          params: IdParams,
          response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...ErrorResponses },
        },
      },
      async (request) => {
        await memory.delete(request.tenant, request.params.id);
        return { id: request.params.id, deleted: true as const };
      },
    );

    app.get(
      '/v1/memories/:id/history',
      {
        schema: {
          tags: ['memories'],
          summary: 'Versions of a memory, including the memories it superseded, a page of memories at a time',
          params: IdParams,
          querystring: HistoryQuery,
          response: { 200: HistoryView, ...ErrorResponses },
        },
      },
      async (request) => memory.history(request.tenant, request.params.id, request.query),
    );

    app.post(
      '/v1/memories/:id/restore',
      {
        schema: {
          tags: ['memories'],
          summary: 'Bring an archived, superseded or quarantined memory back into search',
          params: IdParams,
          response: { 200: MemoryRecord, ...ErrorResponses },
        },
      },
      async (request) => memory.restore(request.tenant, request.params.id),
    );
  };
}
