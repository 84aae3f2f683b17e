import { ConflictError } from '@hindsight/errors';
import { Identifier, MemoryRecord, Source } from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MemoryService } from '../memory/service.ts';
import { ErrorResponses, IdParams } from './schemas.ts';

const Tenant = z.string().trim().min(1).max(128);

const QuarantineQuery = z
  .object({
    tenant: Tenant,
    user_id: Identifier.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(50),
    cursor: z.string().max(512).optional(),
  })
  .strict();

const QuarantinedMemory = z.object({
  id: z.string(),
  tenant: z.string(),
  user_id: z.string(),
  layer: z.string(),
  category: z.string(),
  content: z.string(),
  /** Why the guard held it back. */
  reason: z.string().nullable(),
  source: Source,
  occurred_at: z.string(),
  created_at: z.string(),
});

const QuarantineList = z.object({ items: z.array(QuarantinedMemory), next_cursor: z.string().nullable() });

/**
 * The admin's review of what the poisoning guard quarantined (kept, never returned by search):
 * list a tenant's quarantined memories with the guard's reason, and release one after review.
 * A quarantined memory that is poison is forgotten with `DELETE /v1/memories/:id`
 * (admin key, `X-Tenant-Id`).
 */
export function quarantineRoutes(memory: MemoryService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/quarantine',
      {
        config: { access: 'admin' },
        schema: {
          tags: ['operations'],
          summary: "A tenant's quarantined memories with the guard's reason, oldest first",
          querystring: QuarantineQuery,
          response: { 200: QuarantineList, ...ErrorResponses },
        },
      },
      async (request) => {
        const { tenant, user_id, limit, cursor } = request.query;
        const page = await memory.list(tenant, {
          status: 'quarantined',
          limit,
          ...(user_id ? { user_id } : {}),
          ...(cursor ? { cursor } : {}),
        });
        return {
          items: page.items.map((record) => ({
            id: record.id,
            tenant: record.tenant,
            user_id: record.user_id,
            layer: record.layer,
            category: record.category,
            content: record.content,
            reason: [...record.history].reverse().find((h) => h.action === 'quarantined')?.note ?? null,
            source: record.source,
            occurred_at: record.occurred_at,
            created_at: record.created_at,
          })),
          next_cursor: page.nextCursor,
        };
      },
    );

    app.post(
      '/admin/quarantine/:id/release',
      {
        config: { access: 'admin' },
        schema: {
          tags: ['operations'],
          summary: 'Release a reviewed quarantined memory into search',
          params: IdParams,
          querystring: z.object({ tenant: Tenant }).strict(),
          response: { 200: MemoryRecord, ...ErrorResponses },
        },
      },
      async (request) => {
        const { tenant } = request.query;
        const current = await memory.get(tenant, request.params.id);
        if (current.status !== 'quarantined') {
          throw new ConflictError(`memory ${current.id} is ${current.status}, not quarantined`);
        }
        return memory.restore(tenant, current.id);
      },
    );
  };
}
