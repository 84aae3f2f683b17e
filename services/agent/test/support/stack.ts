import { expect } from 'vitest';
import {
  createDeployment,
  type Deployment,
  getJson,
  postJson,
  type ServiceProcess,
  spawnService,
} from './processes.ts';

export interface ChatAnswer {
  reply: string;
  memories_used: Array<{ id: string; content: string; layer: string; category: string; score: number }>;
  session_id: string;
}

/**
 * The deployment a user meets, as real processes: memory-api, the consolidation worker
 * (acting with memory-api's admin key, as deployed) and the agent, on a private data dir
 * and Redis prefix.
 */
export interface Stack {
  deployment: Deployment;
  memoryApi: ServiceProcess;
  worker: ServiceProcess;
  agent: ServiceProcess;
  /** One `POST /chat`, expected to answer 200. */
  chat(userId: string, sessionId: string, message: string): Promise<ChatAnswer>;
  /** `POST /sessions/:id/end`, then waits until the worker has consolidated the session. */
  endSession(userId: string, sessionId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(agentEnv: Record<string, string> = {}): Promise<Stack> {
  const deployment = await createDeployment();
  const memoryApi = await spawnService('memory-api', deployment.memoryApiEnv);
  const worker = await spawnService('consolidation-worker', {
    ...deployment.memoryApiEnv,
    MEMORY_API_URL: memoryApi.url,
    MEMORY_API_KEY: deployment.memoryApiEnv.ADMIN_API_KEY as string,
  });
  const agent = await spawnService('agent', {
    MEMORY_API_URL: memoryApi.url,
    MEMORY_API_KEY: deployment.apiKey,
    ...agentEnv,
  });
  const bearer = { authorization: `Bearer ${deployment.apiKey}` };

  async function waitForJob(jobId: string): Promise<{ state: string }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = await getJson(`${memoryApi.url}/v1/jobs/${encodeURIComponent(jobId)}`, bearer);
      if (job.body?.state === 'completed' || job.body?.state === 'failed') return job.body;
      if (Date.now() > deadline) {
        throw new Error(`job ${jobId} not finished within 60 s: ${JSON.stringify(job.body)}\n${worker.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  return {
    deployment,
    memoryApi,
    worker,
    agent,
    async chat(userId, sessionId, message) {
      const answer = await postJson(`${agent.url}/chat`, { user_id: userId, session_id: sessionId, message });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.session_id).toBe(sessionId);
      return answer.body as ChatAnswer;
    },
    async endSession(userId, sessionId) {
      const ended = await postJson(`${agent.url}/sessions/${encodeURIComponent(sessionId)}/end`, { user_id: userId });
      expect(ended.status).toBe(202);
      expect(ended.body.session_id).toBe(sessionId);
      expect((await waitForJob(ended.body.job_id)).state).toBe('completed');
      // Consolidated: the session's working memory is cleared, what was said is long-term now.
      const turns = await getJson(`${memoryApi.url}/v1/sessions/${encodeURIComponent(sessionId)}/turns`, bearer);
      expect(turns.body.turns).toEqual([]);
    },
    async stop() {
      await agent.stop();
      await worker.stop();
      await memoryApi.stop();
      await deployment.cleanup();
    },
  };
}
