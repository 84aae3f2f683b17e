import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeployment,
  type Deployment,
  getJson,
  postJson,
  type ServiceProcess,
  spawnService,
} from './support/processes.ts';

/** The exit code of a process that should end by itself, or 'hung' when it kept running for 30 s. */
async function exitOf(service: ServiceProcess): Promise<number | null | 'hung'> {
  const code = await Promise.race([
    service.exited,
    new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000)),
  ]);
  if (code === 'hung') await service.stop('SIGKILL');
  return code;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let deployment: Deployment;
let memoryApi: ServiceProcess;

beforeAll(async () => {
  deployment = await createDeployment();
  memoryApi = await spawnService('memory-api', deployment.memoryApiEnv);
}, 120_000);

afterAll(async () => {
  await memoryApi?.stop();
  await deployment?.cleanup();
});

describe('the agent as a real process: who may call it', () => {
  it('refuses to listen on a non-loopback address without caller keys', async () => {
    const agent = await spawnService(
      'agent',
      { HOST: '0.0.0.0', MEMORY_API_URL: memoryApi.url, MEMORY_API_KEY: deployment.apiKey },
      { readyPath: null },
    );
    expect(await exitOf(agent)).toBe(78);
    expect(agent.output()).toMatch(/refusing to listen on a non-loopback address without caller keys/);
    expect(agent.output()).toMatch(/AGENT_API_KEYS/);
  }, 60_000);

  it('fails at start, naming MEMORY_API_KEY, when memory-api needs a key and the agent has none', async () => {
    const agent = await spawnService('agent', { MEMORY_API_URL: memoryApi.url }, { readyPath: null });
    expect(await exitOf(agent)).toBe(1);
    expect(agent.output()).toMatch(/requires an API key: set MEMORY_API_KEY/);
  }, 60_000);

  it('fails at start, naming MEMORY_API_KEY, when memory-api refuses the key it has', async () => {
    const agent = await spawnService(
      'agent',
      { MEMORY_API_URL: memoryApi.url, MEMORY_API_KEY: 'not-a-key-of-memory-api' },
      { readyPath: null },
    );
    expect(await exitOf(agent)).toBe(1);
    expect(agent.output()).toMatch(/refused MEMORY_API_KEY/);
  }, 60_000);

  describe('bound beyond loopback with caller keys and user tokens', () => {
    let agent: ServiceProcess;
    const appKey = 'agent-app-key-0123456789';
    const aliceToken = 'alice-token-0123456789';

    beforeAll(async () => {
      agent = await spawnService('agent', {
        HOST: '0.0.0.0',
        MEMORY_API_URL: memoryApi.url,
        MEMORY_API_KEY: deployment.apiKey,
        AGENT_API_KEYS: `support-app:${appKey}`,
        AGENT_USER_TOKENS: `ca-alice:${aliceToken}`,
      });
    }, 120_000);
    afterAll(async () => {
      await agent?.stop();
    });

    const chat = (userId: string, headers: Record<string, string> = {}) =>
      postJson(
        `${agent.url}/chat`,
        { user_id: userId, session_id: `${userId}-s1`, message: 'I like green tea' },
        headers,
      );

    it('keeps /health and /ready public', async () => {
      expect((await getJson(`${agent.url}/health`)).status).toBe(200);
      expect((await getJson(`${agent.url}/ready`)).status).toBe(200);
    });

    it('refuses /chat, /sessions/:id/end and /metrics without a key or with a wrong one', async () => {
      for (const headers of [{}, bearer('wrong-key'), bearer(`${appKey}x`), { authorization: appKey }]) {
        const answer = await chat('ca-bob', headers);
        expect(answer.status).toBe(401);
        expect(answer.body.error.code).toBe('unauthorized');
        expect(JSON.stringify(answer.body)).not.toMatch(/green tea/);
        expect((await postJson(`${agent.url}/sessions/ca-bob-s1/end`, { user_id: 'ca-bob' }, headers)).status).toBe(
          401,
        );
      }
      const metrics = await fetch(`${agent.url}/metrics`);
      expect(metrics.status).toBe(401);
    });

    it('lets an application key chat as any user', async () => {
      const answer = await chat('ca-bob', bearer(appKey));
      expect(answer.status).toBe(200);
      expect(answer.body.session_id).toBe('ca-bob-s1');
      expect((await chat('ca-carol', { 'x-api-key': appKey })).status).toBe(200);
    });

    it('lets a user token chat only as its own user', async () => {
      expect((await chat('ca-alice', bearer(aliceToken))).status).toBe(200);
      const asBob = await chat('ca-bob', bearer(aliceToken));
      expect(asBob.status).toBe(403);
      expect(asBob.body.error.code).toBe('forbidden');
      const endBob = await postJson(`${agent.url}/sessions/ca-bob-s1/end`, { user_id: 'ca-bob' }, bearer(aliceToken));
      expect(endBob.status).toBe(403);
    });
  });

  it('answers 503 naming MEMORY_API_KEY, not memory-api 401, when memory-api stops accepting the key', async () => {
    const agent = await spawnService('agent', { MEMORY_API_URL: memoryApi.url, MEMORY_API_KEY: deployment.apiKey });
    try {
      const port = memoryApi.port;
      await memoryApi.stop('SIGTERM');
      // The same deployment comes back with the agent's key revoked.
      memoryApi = await spawnService(
        'memory-api',
        { ...deployment.memoryApiEnv, API_KEYS: `agent-test:rotated-${deployment.apiKey}` },
        { port },
      );
      const answer = await postJson(`${agent.url}/chat`, {
        user_id: 'ca-dan',
        session_id: 'ca-dan-s1',
        message: 'Remember that I cycle to work',
      });
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('dependency_unavailable');
      expect(answer.body.error.message).toMatch(/MEMORY_API_KEY/);
      expect(answer.body.error.message).not.toMatch(/send "Authorization: Bearer/);
    } finally {
      await agent.stop();
      const port = memoryApi.port;
      await memoryApi.stop('SIGTERM');
      memoryApi = await spawnService('memory-api', deployment.memoryApiEnv, { port });
    }
  }, 120_000);
});
