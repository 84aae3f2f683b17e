import { DecayResult } from '@hindsight/jobs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MemoryService } from '../memory/service.ts';
import { ErrorResponses } from './schemas.ts';

const DecayBody = z
  .object({
    /** Evaluate as of this time (default: now); lets an operator preview a later pass. */
    now: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .default({});

/**
 * Admin-only maintenance the worker's scheduled jobs trigger: the worker never
 * touches the store itself (DESIGN §1), it asks memory-api to run the pass.
 */
export function maintenanceRoutes(memory: MemoryService, tenants: () => string[]): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/admin/maintenance/decay',
      {
        config: { access: 'admin' },
        schema: {
          tags: ['operations'],
          summary: 'One decay pass: reweight, archive below the threshold, delete archived past retention',
          body: DecayBody,
          response: { 200: DecayResult, ...ErrorResponses },
        },
      },
      async (request) => {
        const now = request.body.now ? Date.parse(request.body.now) : Date.now();
        return memory.decay(tenants(), now);
      },
    );
  };
}
