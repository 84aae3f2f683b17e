import type { ErrorBody } from '@hindsight/errors';
import type { FastifyInstance } from 'fastify';

/**
 * Requests that reach a closing app (pipelined, or on a keep-alive connection still busy when
 * the listener closed) get 503 `shutting_down` in the error envelope — Fastify's own answer would be
 * `{"error":"Service Unavailable",…}` — and the connection is closed after it, so the client's
 * next attempt goes to a fresh connection (another replica, or this one once it is back).
 * Every HTTP service calls it on its Fastify instance before anything else is registered.
 */
export function refuseWhileClosing(app: FastifyInstance, service: string): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    const body: ErrorBody = {
      error: { code: 'shutting_down', message: `${service} is shutting down; send the request again` },
    };
    return reply.status(503).header('connection', 'close').header('retry-after', '1').send(body);
  });
}

/**
 * Closes the listener and waits for in-flight requests, for at most `drainMs`: then the connections
 * still open (a request whose work hangs, a client that never finishes sending its body) are cut,
 * so the rest of the shutdown (queues, stores, Redis) can run.
 */
export async function closeApp(app: FastifyInstance, drainMs: number): Promise<void> {
  const cut = setTimeout(() => {
    app.log.warn({ drainMs }, 'requests still in flight after the drain time; closing their connections');
    app.server.closeAllConnections();
  }, drainMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
