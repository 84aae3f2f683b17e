import type { ConsolidationResult } from '@hindsight/jobs';
import type { TurnInput } from '@hindsight/memory-model';
import { startChatCompletionsServer } from '@hindsight/testing';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, type Stack, startStack } from './support/stack.ts';

let stack: Stack | undefined;
let llm: Awaited<ReturnType<typeof startChatCompletionsServer>> | undefined;

afterEach(async () => {
  await stack?.close();
  await llm?.close();
  stack = undefined;
  llm = undefined;
});

const say = (userId: string, content: string): TurnInput => ({ user_id: userId, role: 'user', content });

/**
 * memory-api committing the worker's `nth` memory write but holding its reply: `committed`
 * resolves once the write is in the store and the reply waits, until `release()`, for a worker
 * the test may kill meanwhile — a worker that died after its write landed, before it saw the answer.
 */
function holdWorkerReply(nth: number, isHeldCall = isMemoryWrite) {
  let writes = 0;
  let commit: () => void = () => undefined;
  let release: () => void = () => undefined;
  const committed = new Promise<void>((resolve) => (commit = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = new WeakSet<FastifyRequest>();
  return {
    committed,
    release: () => release(),
    beforeReady(app: FastifyInstance) {
      app.addHook('onRequest', async (request) => {
        const isWorkerCall = request.headers['x-tenant-id'] !== undefined;
        if (isWorkerCall && isHeldCall(request) && ++writes === nth) held.add(request);
      });
      app.addHook('onSend', async (request) => {
        if (!held.has(request)) return;
        commit();
        await released;
      });
    },
  };
}

const isMemoryWrite = (request: FastifyRequest) => request.method === 'POST' && request.url === '/v1/memories';
/** The worker clearing the consolidated turns, its last step before the job completes. */
const isSessionClear = (request: FastifyRequest) =>
  request.method === 'DELETE' && request.url.startsWith('/v1/sessions/');

describe('consolidation failures', () => {
  it('fails visibly, retries and deletes nothing when the llm extractor (local OpenAI-compatible server) answers invalid JSON', async () => {
    llm = await startChatCompletionsServer(() => ({ content: '{"items": [ this is not json' }));
    stack = await startStack({
      apiEnv: { JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '100' },
      workerEnv: { EXTRACTOR: 'llm', LLM_BASE_URL: llm.url, LLM_MODEL: 'local-test' },
    });
    const s = stack;
    const existing = await s.client.store({
      content: 'The user likes green tea',
      memory_type: 'preference',
      user_id: 'llm-user',
    });
    const turns = [say('llm-user', "I'm allergic to peanuts."), say('llm-user', 'Please keep answers short.')];
    await s.client.appendTurns('llm-session', turns);
    const ended = await s.client.endSession('llm-session', 'llm-user');

    const job = await s.waitForJob(ended.job_id, ['failed', 'completed']);
    expect(job.state).toBe('failed');
    expect(job.attempts).toBe(3);
    expect(job.failed_reason).toMatch(/invalid JSON/);
    expect(llm.requests).toHaveLength(3);

    // Nothing was deleted: the working memory and the earlier memory are intact; nothing was written.
    expect((await s.client.sessionTurns('llm-session')).turns.map((t) => t.content)).toEqual(
      turns.map((t) => t.content),
    );
    const memories = (await s.client.list({ user_id: 'llm-user' })).items;
    expect(memories.map((m) => m.id)).toEqual([existing.id]);
    expect(memories[0]?.status).toBe('active');

    // The dashboard's API lists it among the failed jobs (admin key only).
    const dashboard = await fetch(`${s.url}/admin/queues/api/queues?activeQueue=${s.queueName}&status=failed&page=1`, {
      headers: { authorization: `Bearer ${KEYS.ADMIN_API_KEY}` },
    });
    expect(dashboard.status).toBe(200);
    const board = (await dashboard.json()) as {
      queues: Array<{ name: string; jobs: Array<{ id: string; failedReason: string }> }>;
    };
    const failed = board.queues.find((q) => q.name === s.queueName)?.jobs ?? [];
    expect(failed.map((j) => j.id)).toContain(ended.job_id);
    expect(failed.find((j) => j.id === ended.job_id)?.failedReason).toMatch(/invalid JSON/);
  });

  it('leaves no duplicate memories when the worker is SIGKILLed in the middle of a job and another retries it', async () => {
    // The worker's second memory write lands, and the worker is killed before it sees the answer.
    const hold = holdWorkerReply(2);
    stack = await startStack({
      apiEnv: { JOB_ATTEMPTS: '5', JOB_BACKOFF_MS: '100' },
      workerEnv: { WORKER_LOCK_MS: '2000' },
      beforeReady: hold.beforeReady,
    });
    const s = stack;
    const user = 'crash-user';
    await s.client.appendTurns('crash-session', [
      say(user, "I'm allergic to peanuts."),
      say(user, 'Please keep answers short.'),
      say(user, 'Remind me to renew my passport next month.'),
      say(user, 'I love jazz.'),
    ]);
    const ended = await s.client.endSession('crash-session', user);
    await hold.committed;
    const [first] = s.workers;
    first?.child.kill('SIGKILL');
    expect(await first?.exited).toBeNull();
    // The retry must not repeat the write that landed.
    hold.release();

    await s.startWorker({ WORKER_LOCK_MS: '2000' });
    const job = await s.waitForJob(ended.job_id, ['completed', 'failed']);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    const result = job.result as ConsolidationResult;
    expect(result.extracted).toBe(4);

    const memories = (await s.client.list({ user_id: user, limit: 200 })).items.filter((m) => m.category !== 'profile');
    const semantic = memories.filter((m) => m.layer === 'semantic');
    expect(semantic).toHaveLength(4);
    expect(new Set(semantic.map((m) => m.content_hash)).size).toBe(4);
    expect(semantic.every((m) => m.proof_count === 1)).toBe(true);
    expect(memories.filter((m) => m.category === 'summary')).toHaveLength(1);
    const transcript = memories.filter((m) => m.category === 'turn');
    expect(transcript).toHaveLength(4);
    expect(transcript.every((m) => m.proof_count === 1)).toBe(true);
    expect((await s.client.sessionTurns('crash-session')).turns).toEqual([]);
  }, 60_000);

  it('records the work actually done when the worker is SIGKILLed after clearing the session, before completing', async () => {
    // Every memory and the summary are written and the turns cleared; the worker dies before it sees the answer.
    const hold = holdWorkerReply(1, isSessionClear);
    stack = await startStack({
      apiEnv: { JOB_ATTEMPTS: '5', JOB_BACKOFF_MS: '100' },
      workerEnv: { WORKER_LOCK_MS: '2000' },
      beforeReady: hold.beforeReady,
    });
    const s = stack;
    const user = 'cleared-user';
    await s.client.appendTurns('cleared-session', [
      say(user, "I'm allergic to peanuts."),
      say(user, 'Please keep answers short.'),
      say(user, 'Remind me to renew my passport next month.'),
    ]);
    const ended = await s.client.endSession('cleared-session', user);
    await hold.committed;
    const [first] = s.workers;
    first?.child.kill('SIGKILL');
    expect(await first?.exited).toBeNull();
    hold.release();
    expect((await s.client.sessionTurns('cleared-session')).turns).toEqual([]);

    await s.startWorker({ WORKER_LOCK_MS: '2000' });
    const job = await s.waitForJob(ended.job_id, ['completed', 'failed']);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    const result = job.result as ConsolidationResult;
    const memories = (await s.client.list({ user_id: user, limit: 200 })).items.filter((m) => m.category !== 'profile');
    const semantic = memories.filter((m) => m.layer === 'semantic');
    const summary = memories.find((m) => m.category === 'summary');
    expect(semantic).toHaveLength(3);
    expect(result).toMatchObject({ turns: 3, extracted: 3, created: 3, summary_id: summary?.id });
    expect(result.transcript.written).toBe(3);
    expect(new Set(result.memory_ids)).toEqual(new Set(semantic.map((m) => m.id)));
  }, 60_000);

  it('writes the transcript once when the worker is SIGKILLed while its transcript write is in flight', async () => {
    // The worker's first write — the transcript batch — lands, and the worker dies before it sees the answer.
    const hold = holdWorkerReply(1);
    stack = await startStack({
      apiEnv: { JOB_ATTEMPTS: '5', JOB_BACKOFF_MS: '100' },
      workerEnv: { WORKER_LOCK_MS: '2000' },
      beforeReady: hold.beforeReady,
    });
    const s = stack;
    const user = 'transcript-crash-user';
    const turns = [
      say(user, 'Our flat has a north-facing balcony.'),
      { user_id: user, role: 'assistant' as const, content: 'North-facing balconies suit ferns and hostas.' },
      say(user, 'The landlord allows pots but no drilling.'),
      { user_id: user, role: 'assistant' as const, content: 'Then freestanding planters are the way to go.' },
    ];
    await s.client.appendTurns('transcript-crash-session', turns);
    const ended = await s.client.endSession('transcript-crash-session', user);
    await hold.committed;
    const [first] = s.workers;
    first?.child.kill('SIGKILL');
    expect(await first?.exited).toBeNull();
    // The retry must get the batch's answer back, not write it again.
    hold.release();

    await s.startWorker({ WORKER_LOCK_MS: '2000' });
    const job = await s.waitForJob(ended.job_id, ['completed', 'failed']);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    const result = job.result as ConsolidationResult;
    expect(result.transcript).toEqual({ written: 4, duplicates: 0, rejected: 0 });

    const transcript = (await s.client.list({ user_id: user, limit: 200 })).items.filter((m) => m.category === 'turn');
    expect(transcript.map((m) => m.metadata.turn_id).sort()).toEqual(['t1', 't2', 't3', 't4']);
    expect(transcript.every((m) => m.proof_count === 1)).toBe(true);
    expect(new Set(transcript.map((m) => m.content_hash)).size).toBe(4);
  }, 60_000);
});
