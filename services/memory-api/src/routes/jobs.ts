import { NotFoundError } from '@hindsight/errors';
import { JobStatus } from '@hindsight/jobs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ConsolidationQueue } from '../working/port.ts';
import { ErrorResponses, IdParams } from './schemas.ts';

/** State and result of a queued job; a tenant sees only its own jobs. */
export function jobRoutes(queue: ConsolidationQueue): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/jobs/:id',
      {
        schema: {
          tags: ['sessions'],
          summary: 'State, attempts and result (or failure reason) of a consolidation job',
          params: IdParams,
          response: { 200: JobStatus, ...ErrorResponses },
        },
      },
      async (request) => {
        const found = await queue.status(request.params.id);
        if (!found || found.tenant !== request.tenant) throw new NotFoundError('job', request.params.id);
        return found.status;
      },
    );
  };
}
