/**
 * The sessions eval: plays each fixture user's conversations through memory-api's real HTTP API,
 * ends them so the real consolidation worker process distils them, then asks every gold question
 * through `/retrieve`. Scored beside a baseline that keeps the raw turns only (one episodic
 * memory per turn, nothing distilled), written for a second user in the same run.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createProgress } from '@hindsight/cli/progress';
import type { ConsolidationResult } from '@hindsight/jobs';
import { MemoryApiClient, MemoryApiError } from '@hindsight/memory-client';
import type { MemoryInput, MemoryRecord, SearchResponse } from '@hindsight/memory-model';
import {
  freePort,
  REPO_ROOT,
  type ServiceProcess,
  spawnMemoryApi,
  spawnService,
  uniquePrefix,
} from '@hindsight/testing';
import { percentile, round } from '../scoring.ts';
import { type EvalTarget, evalRunId, evalUserId, openEvalTarget } from '../target.ts';
import { type FixtureUser, loadSessionsFixture, type Split, timedTurns } from './fixture.ts';
import { assertsStale, holdsAll, share, statesChoice } from './score.ts';

const TOP_K = 5;
const WORKER_MAIN = join(REPO_ROOT, 'services/consolidation-worker/src/main.ts');
const ADMIN_KEY = `eval-admin-${randomBytes(6).toString('hex')}`;
const TENANT_KEY = `eval-key-${randomBytes(6).toString('hex')}`;

export interface SessionsEvalOptions {
  dir: string;
  /** An already running memory-api with its worker attached; without it both are started here. */
  url?: string;
  apiKey?: string;
  progress?: boolean;
}

export interface FactOutcome {
  user: string;
  split: Split;
  lang: string;
  question: string;
  expect: string[];
  kept: boolean;
  distilled: boolean;
  /** Some active semantic memory holds the answer (distilled, whether or not search ranks it top 5). */
  extracted: boolean;
  baseline: boolean;
  /** The first result that held the answer, or the top result when none did (for the report). */
  evidence: string | null;
}

export interface SplitSummary {
  users: number;
  sessions: number;
  turns: number;
  facts: number;
  kept: number;
  distilled: number;
  /** Share of facts some active semantic memory holds (ranking aside). */
  extracted: number;
  baselineKept: number;
  semanticMemories: number;
  noise: number;
  noiseShare: number;
  reversals: number;
  reversedActive: number;
}

export interface SessionsEvalResult {
  fixture: { dir: string; users: number; sessions: number; turns: number; facts: number };
  service: { url: string; spawned: boolean; extractor: string };
  splits: Record<'all' | Split, SplitSummary>;
  byLang: Record<string, SplitSummary>;
  consolidation: {
    jobs: number;
    failed: number;
    /** Server-side duration of each consolidation job (ms), with its turn count. */
    p50Ms: number;
    maxMs: number;
    longest: { turns: number; ms: number } | null;
  };
  facts: FactOutcome[];
  noiseMemories: Array<{ user: string; split: Split; content: string }>;
  reversedActive: Array<{ user: string; what: string; content: string }>;
  generatedAt: string;
  durationSeconds: number;
}

interface UserOutcome {
  user: FixtureUser;
  facts: FactOutcome[];
  semantic: MemoryRecord[];
  noise: MemoryRecord[];
  reversedActive: Array<{ what: string; content: string }>;
  turns: number;
}

export async function runSessionsEval(options: SessionsEvalOptions): Promise<SessionsEvalResult> {
  const started = performance.now();
  const users = await loadSessionsFixture(options.dir);
  const stack = await openStack(options);
  const runId = evalRunId();
  const showProgress = options.progress ?? true;
  const jobs: Array<{ turns: number; ms: number; failed: boolean; extractor: string }> = [];
  try {
    const bar = createProgress({ label: 'sessions', total: users.length, unit: 'users', enabled: showProgress });
    const outcomes: UserOutcome[] = [];
    for (const user of users) {
      outcomes.push(await playUser(stack.target.client, runId, user, jobs));
      bar.tick();
    }
    bar.done();
    const durations = jobs.map((j) => j.ms);
    const longest = [...jobs].sort((a, b) => b.turns - a.turns || b.ms - a.ms)[0];
    return {
      fixture: {
        dir: options.dir,
        users: users.length,
        sessions: users.reduce((n, u) => n + u.sessions.length, 0),
        turns: outcomes.reduce((n, o) => n + o.turns, 0),
        facts: users.reduce((n, u) => n + u.gold.length, 0),
      },
      service: { url: stack.target.url, spawned: stack.target.spawned, extractor: jobs[0]?.extractor ?? 'unknown' },
      splits: {
        all: summarise(outcomes),
        tune: summarise(outcomes.filter((o) => o.user.split === 'tune')),
        'held-out': summarise(outcomes.filter((o) => o.user.split === 'held-out')),
      },
      byLang: Object.fromEntries(
        [...new Set(users.map((u) => u.lang))].map((lang) => [
          lang,
          summarise(outcomes.filter((o) => o.user.lang === lang)),
        ]),
      ),
      consolidation: {
        jobs: jobs.length,
        failed: jobs.filter((j) => j.failed).length,
        p50Ms: round(percentile(durations, 50)),
        maxMs: round(Math.max(0, ...durations)),
        longest: longest ? { turns: longest.turns, ms: longest.ms } : null,
      },
      facts: outcomes.flatMap((o) => o.facts),
      noiseMemories: outcomes.flatMap((o) =>
        o.noise.map((m) => ({ user: o.user.id, split: o.user.split, content: m.content })),
      ),
      reversedActive: outcomes.flatMap((o) => o.reversedActive.map((r) => ({ user: o.user.id, ...r }))),
      generatedAt: new Date().toISOString(),
      durationSeconds: round((performance.now() - started) / 1000),
    };
  } finally {
    await stack.close();
  }
}

async function playUser(
  client: MemoryApiClient,
  runId: string,
  user: FixtureUser,
  jobs: Array<{ turns: number; ms: number; failed: boolean; extractor: string }>,
): Promise<UserOutcome> {
  const userId = evalUserId(runId, user.id);
  const rawUserId = evalUserId(runId, user.id, 'raw');
  let turns = 0;
  for (const [index, session] of user.sessions.entries()) {
    const sessionId = evalUserId(runId, user.id, `s${index + 1}`);
    const timed = timedTurns(session);
    turns += timed.length;
    await client.appendTurns(
      sessionId,
      timed.map((t) => ({ user_id: userId, ...t })),
    );
    const ended = await client.endSession(sessionId, userId);
    const job = await waitForJob(client, ended.job_id);
    const result = job.result as ConsolidationResult | undefined;
    jobs.push({
      turns: timed.length,
      ms: result?.duration_ms ?? 0,
      failed: job.state !== 'completed',
      extractor: result?.extractor ?? 'unknown',
    });
    if (job.state !== 'completed') {
      throw new Error(`consolidation of ${user.id} session ${index + 1} ${job.state}: ${job.failed_reason ?? ''}`);
    }
    // The baseline keeps every raw turn and distils nothing.
    const raw: MemoryInput[] = timed.map((t, i) => ({
      content: t.content,
      memory_type: 'episodic',
      user_id: rawUserId,
      session_id: sessionId,
      occurred_at: t.timestamp,
      metadata: { turn_id: `t${i + 1}`, turn_seq: i + 1, role: t.role },
    }));
    await storeEach(client, raw);
  }

  const semantic = await activeSemantic(client, userId);
  const facts: FactOutcome[] = [];
  for (const gold of user.gold) {
    const kept = await retrieve(client, { query: gold.q, user_id: userId, top_k: TOP_K });
    const distilled = await retrieve(client, {
      query: gold.q,
      user_id: userId,
      top_k: TOP_K,
      memory_types: ['semantic'],
    });
    const baseline = await retrieve(client, { query: gold.q, user_id: rawUserId, top_k: TOP_K });
    const hit = kept.results.find((r) => holdsAll(r.content, gold.expect));
    facts.push({
      user: user.id,
      split: user.split,
      lang: user.lang,
      question: gold.q,
      expect: gold.expect,
      kept: hit !== undefined,
      distilled: distilled.results.some((r) => holdsAll(r.content, gold.expect)),
      extracted: semantic.some((m) => holdsAll(m.content, gold.expect)),
      baseline: baseline.results.some((r) => holdsAll(r.content, gold.expect)),
      evidence: (hit ?? kept.results[0])?.content ?? null,
    });
  }
  const noise = semantic.filter((m) => !user.gold.some((g) => holdsAll(m.content, g.expect)));
  const reversedActive = user.reversed.flatMap((r) =>
    semantic
      .filter((m) => statesChoice(m) && assertsStale(m.content, r.stale))
      .map((m) => ({ what: r.what, content: m.content })),
  );
  return { user, facts, semantic, noise, reversedActive, turns };
}

function retrieve(
  client: MemoryApiClient,
  body: { query: string; user_id: string; top_k: number; memory_types?: string[] },
): Promise<SearchResponse> {
  return client.request<SearchResponse>('POST', '/retrieve', body);
}

/** Active semantic memories of a user, without the profile summary (which the agent loads, not search). */
async function activeSemantic(client: MemoryApiClient, userId: string): Promise<MemoryRecord[]> {
  const page = await client.list({ user_id: userId, memory_type: 'semantic', status: 'active', limit: 1000 });
  return page.items.filter((m) => m.category !== 'profile');
}

/** The raw baseline: a batch, or turn by turn when the guard refuses one (that turn is simply not kept). */
async function storeEach(client: MemoryApiClient, items: MemoryInput[]): Promise<void> {
  try {
    await client.storeBatch(items);
    return;
  } catch (error) {
    if (!(error instanceof MemoryApiError) || error.status !== 422) throw error;
  }
  for (const item of items) {
    try {
      await client.store(item);
    } catch (error) {
      if (!(error instanceof MemoryApiError) || error.status !== 422) throw error;
    }
  }
}

async function waitForJob(client: MemoryApiClient, jobId: string) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const job = await client.job(jobId);
    if (job.state === 'completed' || job.state === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.state} after 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function summarise(outcomes: readonly UserOutcome[]): SplitSummary {
  const facts = outcomes.flatMap((o) => o.facts);
  const semantic = outcomes.reduce((n, o) => n + o.semantic.length, 0);
  const noise = outcomes.reduce((n, o) => n + o.noise.length, 0);
  return {
    users: outcomes.length,
    sessions: outcomes.reduce((n, o) => n + o.user.sessions.length, 0),
    turns: outcomes.reduce((n, o) => n + o.turns, 0),
    facts: facts.length,
    kept: share(facts.filter((f) => f.kept).length, facts.length),
    distilled: share(facts.filter((f) => f.distilled).length, facts.length),
    extracted: share(facts.filter((f) => f.extracted).length, facts.length),
    baselineKept: share(facts.filter((f) => f.baseline).length, facts.length),
    semanticMemories: semantic,
    noise,
    noiseShare: share(noise, semantic),
    reversals: outcomes.reduce((n, o) => n + o.user.reversed.length, 0),
    reversedActive: outcomes.reduce((n, o) => n + o.reversedActive.length, 0),
  };
}

interface Stack {
  target: EvalTarget;
  close(): Promise<void>;
}

/** memory-api and the consolidation worker as real child processes on one fresh queue (or `--url`). */
async function openStack(options: SessionsEvalOptions): Promise<Stack> {
  if (options.url) {
    const target = await openEvalTarget({ url: options.url, ...(options.apiKey ? { apiKey: options.apiKey } : {}) });
    return { target, close: () => target.close() };
  }
  const queueName = `hindsight-eval-${randomBytes(4).toString('hex')}`;
  const redisPrefix = uniquePrefix('hindsight-eval');
  const api = await spawnMemoryApi({
    redisPrefix,
    env: { API_KEYS: `eval:${TENANT_KEY}`, ADMIN_API_KEY: ADMIN_KEY, QUEUE_NAME: queueName, SESSION_IDLE_SECONDS: '0' },
  });
  let worker: ServiceProcess;
  try {
    const port = await freePort();
    worker = await spawnService({
      name: 'consolidation-worker',
      entry: WORKER_MAIN,
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        MEMORY_API_URL: api.url,
        MEMORY_API_KEY: ADMIN_KEY,
        REDIS_PREFIX: redisPrefix,
        QUEUE_NAME: queueName,
        SCHEDULES_ENABLED: 'false',
        SUMMARY_DELAY_MS: '60000',
      },
      port,
      readyPath: '/ready',
      readyTimeoutMs: 60_000,
      killAfterMs: 10_000,
      outputTailChars: 64 * 1024,
    });
  } catch (error) {
    await api.stop();
    throw error;
  }
  const client = new MemoryApiClient({ baseUrl: api.url, apiKey: TENANT_KEY, timeoutMs: 120_000 });
  return {
    target: { client, url: api.url, spawned: true, close: () => api.stop() },
    async close() {
      await worker.stop('SIGTERM');
      await api.stop();
    },
  };
}
