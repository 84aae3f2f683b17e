import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { checkReadiness, healthRoutes, type ReadinessCheck } from '../src/index.ts';

const answers: ReadinessCheck = { name: 'store', check: async () => undefined };
const refuses: ReadinessCheck = {
  name: 'redis',
  check: async () => {
    throw new Error('connection refused');
  },
};
/** Settles only when the test says so, standing in for a dependency that hangs. */
function hanging(name: string): ReadinessCheck & { release(): void } {
  const resolvers: Array<() => void> = [];
  const settled = new Promise<void>((resolve) => resolvers.push(resolve));
  return {
    name,
    check: () => settled,
    release: () => {
      for (const resolve of resolvers) resolve();
    },
  };
}

describe('checkReadiness', () => {
  it('reports each check by name and is ready only when all answer', async () => {
    expect(await checkReadiness([answers])).toEqual({ status: 'ready', checks: { store: { ok: true } } });
    expect(await checkReadiness([answers, refuses])).toEqual({
      status: 'not_ready',
      checks: { store: { ok: true }, redis: { ok: false, error: 'connection refused' } },
    });
  });

  it('fails a check that outlives the deadline, naming the wait', async () => {
    const embedder = hanging('embedder');
    const readiness = await checkReadiness([answers, embedder], 50);
    embedder.release();
    expect(readiness).toEqual({
      status: 'not_ready',
      checks: { store: { ok: true }, embedder: { ok: false, error: 'no answer within 50 ms' } },
    });
  });
});

describe('healthRoutes', () => {
  it('serves /health and /ready (200, then 503) from a plain Fastify instance', async () => {
    let up = true;
    const app = Fastify({ logger: false });
    app.register(
      healthRoutes([
        {
          name: 'store',
          check: async () => {
            if (!up) throw new Error('store closed');
          },
        },
      ]),
    );
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok' });
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready', checks: { store: { ok: true } } }]);
    up = false;
    const down = await app.inject({ method: 'GET', url: '/ready' });
    expect([down.statusCode, down.json()]).toEqual([
      503,
      { status: 'not_ready', checks: { store: { ok: false, error: 'store closed' } } },
    ]);
    await app.close();
  });

  it('adds the service fields to /health and lays /ready out as the service asks', async () => {
    const app = Fastify({ logger: false });
    app.register(
      healthRoutes([refuses], {
        health: { mode: 'offline' },
        readyBody: (readiness) => ({ status: readiness.status, redis: readiness.checks.redis }),
      }),
    );
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok', mode: 'offline' });
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect([ready.statusCode, ready.json()]).toEqual([
      503,
      { status: 'not_ready', redis: { ok: false, error: 'connection refused' } },
    ]);
    await app.close();
  });
});
