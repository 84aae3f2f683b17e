import { DebugMemory } from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MemoryService } from '../memory/service.ts';
import type { MemoryActivity } from '../observability/metrics.ts';
import { ErrorResponses } from './schemas.ts';

/** Waiting work in the consolidation queue, when memory-api has a queue producer. */
export interface QueueDepthSource {
  depth(): Promise<Record<string, number>>;
}

const DebugQuery = z.object({ tenant: z.string().min(1).max(128).optional() }).strict();

/** `GET /debug/memory` (admin key): counts and recent activity. */
export function debugRoutes(deps: {
  memory: Pick<MemoryService, 'counts'>;
  activity: MemoryActivity;
  queue?: QueueDepthSource;
  startedAt: string;
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/debug/memory',
      {
        config: { access: 'admin' },
        schema: {
          tags: ['operations'],
          summary:
            'Memories per layer and status (all tenants, or `?tenant=`), last write, retrieval hit rate, queue depth',
          querystring: DebugQuery,
          response: { 200: DebugMemory, ...ErrorResponses },
        },
      },
      async (request) => {
        const rows = await deps.memory.counts(request.query.tenant);
        const layers: Record<string, Record<string, number>> = {};
        let total = 0;
        for (const row of rows) {
          const byStatus = layers[row.layer] ?? {};
          byStatus[row.status] = row.count;
          layers[row.layer] = byStatus;
          total += row.count;
        }
        const { searches, searchesWithResults, lastWriteAt } = deps.activity;
        return {
          layers,
          total,
          last_write_at: lastWriteAt,
          retrieval: {
            searches,
            with_results: searchesWithResults,
            hit_rate: searches === 0 ? null : Math.round((searchesWithResults / searches) * 10_000) / 10_000,
          },
          queue: deps.queue ? await deps.queue.depth() : null,
          since: deps.startedAt,
        };
      },
    );
  };
}
