import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { MemoryRecord } from '@hindsight/memory-model';
import { freePort, type PgliteServer, spawnPgliteServer } from '@hindsight/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited } from '../launcher/children.ts';

/**
 * `VECTOR_STORE=postgres npm start` against a PostgreSQL 18 + pgvector server (PGlite, its own
 * process, real wire protocol): the whole suite as real processes — embedder, memory-api on
 * PostgreSQL, the consolidation worker, the agent — driven over HTTP like a user would.
 */
const root = resolve(import.meta.dirname, '../..');

async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// One launch, used and then stopped by its last test: the steps of that life run in the order written
// (every other suite, and these among the files, run in any order).
describe('npm start with VECTOR_STORE=postgres (real processes on PGlite over the wire protocol)', {
  shuffle: false,
}, () => {
  let dataDir: string;
  let database: PgliteServer;
  let launcher: ChildProcess;
  let output = '';
  let api: string;
  let agent: string;

  const call = async <T>(base: string, method: string, path: string, body?: unknown, type = 'application/json') => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': type },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    const json = response.headers.get('content-type')?.startsWith('application/json');
    return (json ? JSON.parse(text) : text) as T;
  };
  const retrieve = (query: string, user: string, extra: object = {}) =>
    call<{ results: Array<{ id: string; content: string }> }>(api, 'POST', '/retrieve', {
      query,
      user_id: user,
      ...extra,
    });
  const records = async (user: string) =>
    (await call<{ items: MemoryRecord[] }>(api, 'GET', `/v1/memories?user_id=${user}&limit=1000`)).items;
  const rowsInPostgres = async (user: string) => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT count(*) AS n FROM hindsight.memories WHERE user_id = $1', [user]);
      return Number(rows[0].n);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hindsight-launch-pg-'));
    database = await spawnPgliteServer({ dataDir: join(dataDir, 'pglite') });
    const [agentPort, memoryApiPort, embedder, worker, redis] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const { QDRANT_URL: _q, API_KEYS: _k, API_KEYS_FILE: _f, ADMIN_API_KEY: _a, ...inherited } = process.env;
    launcher = spawn(process.execPath, ['--import', 'tsx', 'scripts/launch.ts'], {
      cwd: root,
      env: {
        ...inherited,
        VECTOR_STORE: 'postgres',
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        AGENT_PORT: String(agentPort),
        MEMORY_API_PORT: String(memoryApiPort),
        EMBEDDER_PORT: String(embedder),
        WORKER_PORT: String(worker),
        // Nothing listens there: the launcher starts its own redis-server.
        REDIS_URL: `redis://127.0.0.1:${redis}`,
        LOG_LEVEL: 'warn',
        SESSION_IDLE_SECONDS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    launcher.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(
      () => (output.includes('all services ready') || launcher.exitCode !== null ? true : undefined),
      170_000,
      'the launcher to report ready',
    );
    if (launcher.exitCode !== null) throw new Error(`launcher exited early:\n${output}`);
    api = `http://127.0.0.1:${memoryApiPort}`;
    agent = `http://127.0.0.1:${agentPort}`;
  }, 240_000);

  afterAll(async () => {
    for (const [, pid] of output.matchAll(/started [\w-]+ \(pid (\d+)\)/g)) {
      if (alive(Number(pid))) process.kill(Number(pid), 'SIGKILL');
    }
    if (launcher && launcher.exitCode === null) launcher.kill('SIGKILL');
    await database?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('runs memory-api on PostgreSQL and says so', async () => {
    expect(output).toContain(`Long-term store: PostgreSQL at ${database.url}`);
    const ready = await call<{ status: string }>(api, 'GET', '/ready');
    expect(ready.status).toBe('ready');
    expect(await rowsInPostgres('nobody')).toBe(0);
  });

  it('stores and retrieves, in English and Chinese, from PostgreSQL', async () => {
    await call(api, 'POST', '/store', {
      content: 'The user is allergic to peanuts',
      memory_type: 'fact',
      user_id: 'pg-ann',
    });
    await call(api, 'POST', '/store', { content: '用户喜欢简洁的回答', memory_type: 'preference', user_id: 'pg-ann' });
    expect((await retrieve('what is the user allergic to?', 'pg-ann')).results[0]?.content).toBe(
      'The user is allergic to peanuts',
    );
    expect((await retrieve('用户的回答偏好', 'pg-ann')).results[0]?.content).toBe('用户喜欢简洁的回答');
    expect(await rowsInPostgres('pg-ann')).toBe(2);
  });

  it('supersedes a contradicted preference and keeps both in the history', async () => {
    const first = await call<{ id: string }>(api, 'POST', '/store', {
      content: 'The user likes coffee',
      memory_type: 'preference',
      user_id: 'pg-ann',
    });
    const second = await call<{ id: string; status: string; superseded_ids: string[] }>(api, 'POST', '/store', {
      content: 'The user has quit coffee',
      memory_type: 'preference',
      user_id: 'pg-ann',
    });
    expect(second.status).toBe('superseded');
    expect(second.superseded_ids).toEqual([first.id]);
    const now = await retrieve('does the user drink coffee?', 'pg-ann');
    expect(now.results.map((r) => r.content)).toContain('The user has quit coffee');
    expect(now.results.map((r) => r.content)).not.toContain('The user likes coffee');
    const both = await retrieve('does the user drink coffee?', 'pg-ann', { include_superseded: true });
    expect(both.results.map((r) => r.id)).toEqual(expect.arrayContaining([first.id, second.id]));
    const old = await call<MemoryRecord>(api, 'GET', `/v1/memories/${first.id}`);
    expect(old).toMatchObject({ status: 'superseded', superseded_by: second.id });
  });

  it('consolidates a finished session through the worker and remembers it in the next one', async () => {
    const told = await call<{ reply: string }>(agent, 'POST', '/chat', {
      user_id: 'pg-bo',
      session_id: 'pg-bo-s1',
      message: "Hi! Just so you know, I'm allergic to peanuts.",
    });
    expect(told.reply.length).toBeGreaterThan(0);
    const ended = await call<{ job_id: string }>(agent, 'POST', '/sessions/pg-bo-s1/end', { user_id: 'pg-bo' });
    const job = await eventually(
      async () => {
        const state = await call<{ state: string }>(api, 'GET', `/v1/jobs/${encodeURIComponent(ended.job_id)}`);
        return state.state === 'completed' || state.state === 'failed' ? state : undefined;
      },
      60_000,
      'the consolidation job',
    );
    expect(job.state).toBe('completed');
    expect((await records('pg-bo')).some((r) => r.layer === 'semantic' && /allergic to peanuts/i.test(r.content))).toBe(
      true,
    );
    const asked = await call<{ reply: string; memories_used: Array<{ content: string }> }>(agent, 'POST', '/chat', {
      user_id: 'pg-bo',
      session_id: 'pg-bo-s2',
      message: 'Can you recommend me a snack?',
    });
    expect(asked.reply).toMatch(/peanut/i);
    expect(asked.memories_used.some((m) => /allergic to peanuts/i.test(m.content))).toBe(true);
  }, 120_000);

  it('exports and imports NDJSON against PostgreSQL: a re-import finds every id already there', async () => {
    const exported = await call<string>(api, 'GET', '/v1/export?user_id=pg-ann', undefined, 'application/x-ndjson');
    const lines = exported.trim().split('\n');
    expect(lines.length).toBe((await records('pg-ann')).length);
    expect(lines.map((line) => (JSON.parse(line) as MemoryRecord).user_id)).toEqual(lines.map(() => 'pg-ann'));
    const again = await call<{ lines: number; imported: number; skipped: number }>(
      api,
      'POST',
      '/v1/import',
      exported,
      'application/x-ndjson',
    );
    expect(again).toMatchObject({ lines: lines.length, imported: 0, skipped: lines.length });
  });

  it('erases a user from PostgreSQL: the rows are gone and nothing is found', async () => {
    expect(await rowsInPostgres('pg-ann')).toBeGreaterThan(0);
    const receipt = await call<{ user_id: string; memories: number }>(api, 'DELETE', '/v1/users/pg-ann');
    expect(receipt.user_id).toBe('pg-ann');
    expect(receipt.memories).toBeGreaterThanOrEqual(4);
    expect(await rowsInPostgres('pg-ann')).toBe(0);
    expect((await retrieve('peanuts coffee', 'pg-ann', { include_superseded: true })).results).toEqual([]);
    expect(await rowsInPostgres('pg-bo')).toBeGreaterThan(0);
  });

  it('stops every service on one SIGINT', async () => {
    const pids = [...output.matchAll(/started [\w-]+ \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    launcher.kill('SIGINT');
    const { code } = await exited(launcher);
    expect(code).toBe(130);
    await eventually(() => (pids.every((pid) => !alive(pid)) ? true : undefined), 10_000, 'every child to exit');
  }, 90_000);
});
