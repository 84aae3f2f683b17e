import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeployment,
  type Deployment,
  getJson,
  postJson,
  type ServiceProcess,
  spawnService,
} from './support/processes.ts';

let deployment: Deployment;
let memoryApi: ServiceProcess;
let worker: ServiceProcess;
let agent: ServiceProcess;

beforeAll(async () => {
  deployment = await createDeployment();
  memoryApi = await spawnService('memory-api', deployment.memoryApiEnv);
  const memoryApiClientEnv = { MEMORY_API_URL: memoryApi.url, MEMORY_API_KEY: deployment.apiKey };
  // The worker acts for each job's tenant with memory-api's admin key, as deployed.
  worker = await spawnService('consolidation-worker', {
    ...deployment.memoryApiEnv,
    MEMORY_API_URL: memoryApi.url,
    MEMORY_API_KEY: deployment.memoryApiEnv.ADMIN_API_KEY as string,
  });
  agent = await spawnService('agent', memoryApiClientEnv);
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await worker?.stop();
  await memoryApi?.stop();
  await deployment?.cleanup();
});

/** Polls memory-api's job until it finished, for at most 60 s. */
async function waitForJob(jobId: string): Promise<{ state: string; result?: unknown }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await getJson(`${memoryApi.url}/v1/jobs/${encodeURIComponent(jobId)}`, {
      authorization: `Bearer ${deployment.apiKey}`,
    });
    if (job.body?.state === 'completed' || job.body?.state === 'failed') return job.body;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} not finished within 60 s: ${JSON.stringify(job.body)}\n${worker.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function tellThenAskInANewSession(user: string, told: string[], ask: string) {
  for (const message of told) {
    const reply = await postJson(`${agent.url}/chat`, { user_id: user, session_id: `${user}-s1`, message });
    expect(reply.status).toBe(200);
  }
  const ended = await postJson(`${agent.url}/sessions/${user}-s1/end`, { user_id: user });
  expect(ended.status).toBe(202);
  expect(ended.body.session_id).toBe(`${user}-s1`);
  const job = await waitForJob(ended.body.job_id);
  expect(job.state).toBe('completed');

  // Consolidated: the session's working memory is cleared, the fact is long-term now.
  const turns = await getJson(`${memoryApi.url}/v1/sessions/${user}-s1/turns`, {
    authorization: `Bearer ${deployment.apiKey}`,
  });
  expect(turns.body.turns).toEqual([]);

  const asked = await postJson(`${agent.url}/chat`, { user_id: user, session_id: `${user}-s2`, message: ask });
  expect(asked.status).toBe(200);
  expect(asked.body.session_id).toBe(`${user}-s2`);
  return asked.body as { reply: string; memories_used: Array<{ content: string; layer: string }> };
}

describe('end to end across real processes: agent → MCP → memory-api → store, worker consolidating', () => {
  it('remembers a peanut allergy from one session in the next (English)', async () => {
    const answer = await tellThenAskInANewSession(
      'e2e-liam',
      ["Hi! Just so you know, I'm allergic to peanuts.", 'Thanks, that is all for today.'],
      'Can you recommend me a snack?',
    );
    expect(answer.reply).toMatch(/peanut/i);
    expect(answer.reply).not.toMatch(/peanut butter crackers|trail mix/);
    expect(answer.memories_used.some((m) => /allergic to peanuts/i.test(m.content) && m.layer === 'semantic')).toBe(
      true,
    );
  }, 120_000);

  it('remembers a peanut allergy from one session in the next (Chinese)', async () => {
    const answer = await tellThenAskInANewSession(
      'e2e-mei',
      ['你好，我对花生过敏。', '好的，谢谢。'],
      '给我推荐一个零食吧',
    );
    expect(answer.reply).toMatch(/花生/);
    expect(answer.reply.match(/花生过敏/g)).toHaveLength(1);
    expect(answer.reply).not.toMatch(/花生酱|花生杏仁/);
    expect(answer.memories_used.some((m) => /花生/.test(m.content) && m.layer === 'semantic')).toBe(true);
  }, 120_000);
});
