import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from './support/agent.ts';
import {
  createDeployment,
  type Deployment,
  getJson,
  postJson,
  type ServiceProcess,
  spawnService,
} from './support/processes.ts';

let deployment: Deployment;
let memoryApi: ServiceProcess | undefined;
let agent: Awaited<ReturnType<typeof startAgent>>;

beforeAll(async () => {
  deployment = await createDeployment();
  memoryApi = await spawnService('memory-api', deployment.memoryApiEnv);
  agent = await startAgent({
    MEMORY_API_URL: memoryApi.url,
    MEMORY_API_KEY: deployment.apiKey,
    MEMORY_API_TIMEOUT_MS: '5000',
  });
});

afterAll(async () => {
  await agent?.close();
  await memoryApi?.stop();
  await deployment?.cleanup();
});

describe('agent when memory-api restarts', () => {
  it('answers 503 while memory-api is down and carries on over a new connection once it is back', async () => {
    const chat = (message: string) =>
      postJson(`${agent.url}/chat`, { user_id: 'rc-kim', session_id: 'rc-s1', message });
    expect((await chat('Remember that I take the train to work')).status).toBe(200);

    const port = memoryApi!.port;
    expect(await memoryApi!.stop('SIGTERM')).toBe(143);
    memoryApi = undefined;

    const down = await chat('Do you remember how I get to work?');
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('dependency_unavailable');
    expect(down.body.error.message).toMatch(/memory-api unavailable/);
    const notReady = await getJson(`${agent.url}/ready`);
    expect(notReady.status).toBe(503);
    expect(notReady.body.memory_api.ok).toBe(false);

    memoryApi = await spawnService('memory-api', deployment.memoryApiEnv, { port });
    const back = await chat('Do you remember how I get to work?');
    expect(back.status).toBe(200);
    expect(back.body.reply).toMatch(/I take the train to work/);
    expect((await getJson(`${agent.url}/ready`)).status).toBe(200);
  }, 120_000);
});
