import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { AppError, toErrorBody } from '@hindsight/errors';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * The BullMQ dashboard (waiting, active, delayed, completed and failed jobs with their
 * data, results and failure reasons). It lives under /admin, so the auth hook demands
 * the admin key; a browser gets a Basic challenge and sends the key as the password.
 */
export async function registerQueueDashboard(app: FastifyInstance, queues: readonly Queue[]): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'hindsight' } },
  });
  // The board answers its routes' errors itself (as 500); keep our shape and status for ours (401/403).
  // Its status type omits 401, but the adapter passes any status through to the reply.
  serverAdapter.setErrorHandler((error) =>
    error instanceof AppError && error.status < 500
      ? { status: error.status as 400, body: toErrorBody(error) }
      : { status: 500, body: { error: { code: 'internal', message: 'internal error' } } },
  );
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 401) reply.header('www-authenticate', 'Basic realm="hindsight admin", charset="UTF-8"');
      return payload;
    });
    await scope.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
  });
}
