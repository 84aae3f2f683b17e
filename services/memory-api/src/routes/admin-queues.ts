import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { AppError, toErrorBody } from '@hindsight/errors';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * The BullMQ dashboard (waiting, active, delayed, completed and failed jobs with their
 * data, results and failure reasons). Every route the board adds is declared admin-only;
 * a browser gets a Basic challenge and sends the key as the password.
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
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: 'admin' };
    });
    challengeBrowsers(scope, 'hindsight admin');
    await scope.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
  });
}

/** A 401 from this scope asks a browser for credentials (any user name, the key as password). */
export function challengeBrowsers(scope: FastifyInstance, realm: string): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 401) reply.header('www-authenticate', `Basic realm="${realm}", charset="UTF-8"`);
    return payload;
  });
}
