import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UserService } from '../users/service.ts';

/** The header the consolidation worker names its job in. */
export const JOB_HEADER = 'x-hindsight-job';

/**
 * Every write request made on behalf of a job goes through the erasure fence before its handler:
 * the job's own user, the user a `/v1/users/:id` route names, and a top-level `user_id`.
 */
export function registerErasureFence(app: FastifyInstance, users: Pick<UserService, 'assertJobMayWrite'>): void {
  app.addHook('preHandler', async (request: FastifyRequest) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const jobId = request.headers[JOB_HEADER];
    if (typeof jobId !== 'string' || jobId.length === 0) return;
    await users.assertJobMayWrite(request.tenant, jobId.slice(0, 256), usersNamedBy(request));
  });
}

function usersNamedBy(request: FastifyRequest): Array<string | undefined> {
  const fromPath = request.routeOptions.url?.startsWith('/v1/users/:id')
    ? (request.params as { id?: string } | undefined)?.id
    : undefined;
  const body = request.body as { user_id?: unknown } | undefined;
  return [fromPath, typeof body?.user_id === 'string' ? body.user_id : undefined];
}
