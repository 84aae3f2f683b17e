import type { TurnInput } from '@hindsight/memory-model';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack.ts';

let stack: Stack | undefined;
let release: () => void = () => undefined;

afterEach(async () => {
  release();
  await stack?.close();
  stack = undefined;
});

const say = (userId: string, content: string): TurnInput => ({ user_id: userId, role: 'user', content });

describe('worker shutdown', () => {
  it('exits within SHUTDOWN_TIMEOUT_MS after SIGTERM while its job waits on a memory-api that never answers', async () => {
    const released = new Promise<void>((resolve) => (release = resolve));
    let writeArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (writeArrived = resolve));
    stack = await startStack({
      // The job's first write never gets an answer (until the test is over).
      beforeReady: (app: FastifyInstance) =>
        app.addHook('onRequest', async (request) => {
          if (request.method !== 'POST' || request.headers['x-tenant-id'] === undefined) return;
          writeArrived();
          await released;
        }),
      workerEnv: { MEMORY_API_TIMEOUT_MS: '120000', SHUTDOWN_TIMEOUT_MS: '3000' },
    });
    await stack.client.appendTurns('sd-session', [say('sd-user', "I'm allergic to peanuts.")]);
    await stack.client.endSession('sd-session', 'sd-user');
    await arrived;

    const [worker] = stack.workers;
    worker?.child.kill('SIGTERM');
    const code = await Promise.race([
      worker?.exited,
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000)),
    ]);
    expect(code, worker?.output()).toBe(143);
    expect(worker?.output()).toMatch(/shutdown did not finish within 3000 ms/);
  }, 90_000);
});
