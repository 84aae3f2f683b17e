import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemoryRecord } from '@hindsight/memory-model';
import { type PgliteServer, startPgliteServer } from '@hindsight/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAYA_FACTS, PARAPHRASED_ANSWER, PARAPHRASED_QUESTION } from '../support/paraphrase-facts.ts';
import { freePort, type ServiceProcess, spawnService } from '../support/process.ts';

/**
 * `hindsight reindex` through real processes: memory-api and the embedder service as children, the
 * CLI as a child of its own (killed with SIGKILL part way), real SQLite files and PostgreSQL
 * (PGlite) over the wire protocol.
 */
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = join(REPO, 'shared/cli/bin/hindsight.js');

const FACTS = MAYA_FACTS;
const QUESTION = PARAPHRASED_QUESTION;
const ANSWER = PARAPHRASED_ANSWER;

let root: string;
const running: ServiceProcess[] = [];
const redisPrefix = `test-reindex-${randomUUID()}`;
const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hindsight-reindex-'));
});
afterEach(stopAll);
afterAll(async () => {
  await stopAll();
  await rm(root, { recursive: true, force: true });
});

async function stopAll(): Promise<void> {
  for (const child of running.splice(0).reverse()) await child.stop();
}

/** The embedder service serving `model` (the default built-in model when undefined). */
async function startEmbedder(env: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  running.push(await spawnService('embedder', { PORT: String(port), ...env }));
  return `http://127.0.0.1:${port}`;
}

async function startApi(store: Record<string, string>): Promise<ServiceProcess> {
  const api = await spawnService('memory-api', { REDIS_PREFIX: redisPrefix, ...redis, ...store });
  running.push(api);
  return api;
}

/** memory-api expected to refuse the store: its exit code and output. */
async function refusedStart(store: Record<string, string>): Promise<string> {
  const api = await spawnService('memory-api', { REDIS_PREFIX: redisPrefix, ...redis, ...store }, { waitReady: false });
  running.push(api);
  const code = await Promise.race([api.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))]);
  expect(code, api.output()).toBe(1);
  return api.output();
}

async function call<T>(api: ServiceProcess, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return (response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text) as T;
}

/** Every long-term memory, as the export streams it. */
async function exported(api: ServiceProcess): Promise<Map<string, MemoryRecord>> {
  const lines = (await call<string>(api, 'GET', '/v1/export')).split('\n').filter((line) => line.trim() !== '');
  return new Map(lines.map((line) => JSON.parse(line) as MemoryRecord).map((record) => [record.id, record]));
}

/** The export once the access statistics of earlier searches (recorded off the hot path) have landed. */
async function settledExport(api: ServiceProcess): Promise<Map<string, MemoryRecord>> {
  let previous = await exported(api);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const current = await exported(api);
    if (JSON.stringify([...current]) === JSON.stringify([...previous])) return current;
    previous = current;
  }
}

async function firstAnswer(api: ServiceProcess): Promise<string> {
  const body = await call<{ results: Array<{ content: string }> }>(api, 'POST', '/retrieve', {
    query: QUESTION,
    user_id: 'maya',
    top_k: 3,
  });
  return body.results[0]?.content ?? '';
}

/**
 * Maya's facts, memories of every kind (both layers, a superseded one, an edited one with history,
 * an archived one) and `filler` episodic memories of other users, written in batches.
 */
async function seed(api: ServiceProcess, filler: number): Promise<void> {
  for (const content of FACTS) await call(api, 'POST', '/store', { content, memory_type: 'fact', user_id: 'maya' });
  await call(api, 'POST', '/store', { content: 'The user likes coffee', memory_type: 'preference', user_id: 'u-a' });
  const superseding = await call<{ status: string }>(api, 'POST', '/store', {
    content: 'The user has quit coffee',
    memory_type: 'preference',
    user_id: 'u-a',
  });
  expect(superseding.status).toBe('superseded');
  const edited = await call<{ id: string }>(api, 'POST', '/store', {
    content: 'Lives in Porto',
    memory_type: 'fact',
    user_id: 'u-b',
  });
  await call(api, 'PATCH', `/v1/memories/${edited.id}`, { content: 'Lives in Lisbon', metadata: { moved: true } });
  const archived = await call<{ id: string }>(api, 'POST', '/store', {
    content: 'Old locker code is 12',
    user_id: 'u-b',
  });
  await call(api, 'PATCH', `/v1/memories/${archived.id}`, { status: 'archived' });
  await call(api, 'POST', '/v1/memories', {
    items: [
      { content: 'User: we booked the flat in Lisbon', user_id: 'u-b', session_id: 's-1', tags: ['trip'] },
      { content: '用户每天早上喝绿茶', user_id: 'u-b', memory_type: 'preference', confidence: 0.6 },
    ],
  });
  for (let start = 0; start < filler; start += 500) {
    const items = Array.from({ length: Math.min(500, filler - start) }, (_, i) => ({
      content: `Diary entry ${start + i}: walked ${(start + i) % 17} blocks to the ${['bakery', 'library', 'harbour', 'market'][(start + i) % 4]} and back`,
      user_id: `filler-${(start + i) % 40}`,
    }));
    await call(api, 'POST', '/v1/memories', { items });
  }
}

/** Every record as it was, but embedded with `model`. */
function reembedded(before: Map<string, MemoryRecord>, model: string): Map<string, MemoryRecord> {
  return new Map([...before].map(([id, record]) => [id, { ...record, embedding_model: model }]));
}

interface CliRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Exit code, or the signal that ended it. */
  done: Promise<number | NodeJS.Signals>;
}

/** `hindsight reindex …` as a real child process, in memory-api's environment `env`. */
function reindexCli(args: string[], env: Record<string, string>): CliRun {
  const child = spawn(process.execPath, [CLI, 'reindex', ...args], {
    cwd: REPO,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? (signal as NodeJS.Signals))),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  void done.then(() => clearTimeout(timer));
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

async function reindex(args: string[], env: Record<string, string>) {
  const run = reindexCli(args, env);
  const code = await run.done;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** The progress bar's count once it has moved past `atLeast` memories (its plain-text lines off a terminal). */
async function waitForProgress(run: CliRun, atLeast: number): Promise<number> {
  for (;;) {
    const counts = [...run.stderr().matchAll(/(\d+)\/(\d+) memories/g)].map((m) => Number(m[1]));
    const last = counts.at(-1) ?? 0;
    if (last >= atLeast) return last;
    if (run.child.exitCode !== null) throw new Error(`the reindex ended before ${atLeast}:\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('hindsight reindex (real processes)', () => {
  it('moves a builtin-v2 SQLite store to builtin-v11 in place: refused while served, resumed after SIGKILL, idempotent', {
    timeout: 300_000,
  }, async () => {
    const dataDir = join(root, 'v2-to-v3');
    const filler = 1500;
    const v2 = await startEmbedder({ EMBEDDINGS_MODEL: 'builtin-v2' });
    let api = await startApi({ DATA_DIR: dataDir, EMBEDDER_URL: v2 });
    await seed(api, filler);
    expect(await firstAnswer(api)).not.toBe(ANSWER);
    const before = await settledExport(api);
    expect(before.size).toBe(FACTS.length + 6 + filler);
    expect(new Set([...before.values()].map((r) => r.status))).toEqual(new Set(['active', 'superseded', 'archived']));

    // memory-api has the file open: the reindex refuses and changes nothing.
    const whileServed = await reindex([], { DATA_DIR: dataDir });
    expect(whileServed.code).toBe(2);
    expect(whileServed.stderr).toMatch(/another process has the store at .*memory\.db open: stop memory-api/);
    expect(await exported(api)).toEqual(before);
    await stopAll();

    // The upgrade: the embedder now serves builtin-v11. memory-api refuses the store, naming the reindex first.
    const v3 = await startEmbedder();
    const refusal = await refusedStart({ DATA_DIR: dataDir, EMBEDDER_URL: v3 });
    expect(refusal).toContain('"builtin-v2-512" (dimension 512)');
    expect(refusal).toContain('"builtin-v11-512" (dimension 512)');
    expect(refusal).toMatch(/To re-index the store .*`npm run reindex` \(or `npx hindsight reindex`\)/);
    expect(refusal.indexOf('npm run reindex')).toBeLessThan(refusal.indexOf('EMBEDDINGS_MODEL=builtin-v2'));
    expect(refusal).toContain('hindsight export');

    // Killed part way: what it wrote is kept, and memory-api still refuses the half-moved store.
    const killed = reindexCli(['--batch-size', '8'], { DATA_DIR: dataDir, EMBEDDER_URL: v3 });
    const reached = await waitForProgress(killed, 200);
    killed.child.kill('SIGKILL');
    expect(await killed.done).toBe('SIGKILL');
    expect(reached).toBeLessThan(before.size);
    const unfinished = await refusedStart({ DATA_DIR: dataDir, EMBEDDER_URL: v3 });
    expect(unfinished).toMatch(/being re-indexed from "builtin-v2-512" .* to "builtin-v11-512" .*has not finished/);
    expect(unfinished).toContain('npm run reindex');

    const resumed = await reindex(['--batch-size', '64'], { DATA_DIR: dataDir, EMBEDDER_URL: v3 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const resumedAt = Number(/continuing an interrupted run at (\d+)/.exec(resumed.stdout)?.[1]);
    expect(resumedAt).toBeGreaterThanOrEqual(reached);
    expect(resumedAt).toBeLessThan(before.size);
    expect(resumed.stdout).toContain(`re-indexed ${before.size} memories from "builtin-v2-512"`);
    expect(resumed.stdout).toContain(`(${before.size - resumedAt} embedded by this run`);
    expect(resumed.stderr).toMatch(/reindex \[#+-*\] +100% /);

    // Run again: already there, says so, and the file is left byte for byte as it was.
    const storeFile = join(dataDir, 'memory.db');
    const fingerprint = await sha256(storeFile);
    const again = await reindex([], { DATA_DIR: dataDir, EMBEDDER_URL: v3 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `the store already uses "builtin-v11-512" (dimension 512): nothing to re-index (${before.size} memories`,
    );
    expect(await sha256(storeFile)).toBe(fingerprint);

    api = await startApi({ DATA_DIR: dataDir, EMBEDDER_URL: v3 });
    expect(await exported(api)).toEqual(reembedded(before, 'builtin-v11-512'));
    expect(await firstAnswer(api)).toBe(ANSWER);
    // The switched store takes new writes and finds them by meaning.
    await call(api, 'POST', '/store', {
      content: 'Maya is allergic to shellfish.',
      memory_type: 'fact',
      user_id: 'maya',
    });
    const found = await call<{ results: Array<{ content: string }> }>(api, 'POST', '/retrieve', {
      query: 'can she eat prawns?',
      user_id: 'maya',
      top_k: 3,
    });
    expect(found.results.map((r) => r.content)).toContain('Maya is allergic to shellfish.');
  });

  it('changes the dimension (EMBEDDINGS_DIM 512 → 256, in-process embedder) through npm run reindex', {
    timeout: 180_000,
  }, async () => {
    const dataDir = join(root, 'dim');
    let api = await startApi({ DATA_DIR: dataDir });
    await seed(api, 0);
    const before = await exported(api);
    await stopAll();

    const refusal = await refusedStart({ DATA_DIR: dataDir, EMBEDDINGS_DIM: '256' });
    expect(refusal).toContain('"builtin-v11-512" (dimension 512)');
    expect(refusal).toContain('"builtin-v11-256" (dimension 256)');
    expect(refusal).toContain('npm run reindex');

    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('npm', ['run', '--silent', 'reindex', '--', '--json'], {
        cwd: REPO,
        env: { ...process.env, LOG_LEVEL: 'warn', DATA_DIR: dataDir, EMBEDDINGS_DIM: '256' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: 'reindexed',
      from: { model: 'builtin-v11-512', dimension: 512 },
      to: { model: 'builtin-v11-256', dimension: 256 },
      total: before.size,
      reembedded: before.size,
      resumedAt: 0,
    });

    await expect(refusedStart({ DATA_DIR: dataDir })).resolves.toMatch(/dimension 256.*dimension 512/);
    api = await startApi({ DATA_DIR: dataDir, EMBEDDINGS_DIM: '256' });
    expect(await exported(api)).toEqual(reembedded(before, 'builtin-v11-256'));
    expect(await firstAnswer(api)).toBe(ANSWER);
  });

  describe('on PostgreSQL (PGlite over the wire protocol)', () => {
    let database: PgliteServer;
    beforeAll(async () => {
      database = await startPgliteServer();
    }, 60_000);
    afterAll(async () => {
      await database?.stop();
    });

    it('moves a builtin-v2 schema to builtin-v11 in place, resumed after SIGKILL', { timeout: 300_000 }, async () => {
      const store = {
        VECTOR_STORE: 'postgres',
        DATABASE_URL: database.url,
        DATABASE_SCHEMA: `reindex_${randomBytes(4).toString('hex')}`,
      };
      let api = await startApi({ ...store, EMBEDDINGS_MODEL: 'builtin-v2' });
      await seed(api, 400);
      expect(await firstAnswer(api)).not.toBe(ANSWER);
      const before = await settledExport(api);
      await stopAll();

      const refusal = await refusedStart(store);
      expect(refusal).toMatch(/PostgreSQL store .* was built with embedding model "builtin-v2-512"/);
      expect(refusal).toContain('npm run reindex');

      const killed = reindexCli(['--batch-size', '4'], store);
      const reached = await waitForProgress(killed, 100);
      killed.child.kill('SIGKILL');
      expect(await killed.done).toBe('SIGKILL');
      expect(await refusedStart(store)).toMatch(/has not finished/);

      const resumed = await reindex([], store);
      expect(resumed.code, resumed.stderr).toBe(0);
      const resumedAt = Number(/continuing an interrupted run at (\d+)/.exec(resumed.stdout)?.[1]);
      expect(resumedAt).toBeGreaterThanOrEqual(reached);
      expect(resumedAt).toBeLessThan(before.size);
      const again = await reindex([], store);
      expect(again.stdout).toContain('the store already uses "builtin-v11-512"');

      api = await startApi(store);
      expect(await exported(api)).toEqual(reembedded(before, 'builtin-v11-512'));
      expect(await firstAnswer(api)).toBe(ANSWER);
    });
  });

  describe('bad input changes nothing', () => {
    it('names an unknown store, a missing DATA_DIR and a bad batch size', async () => {
      const unknown = await reindex([], { VECTOR_STORE: 'mysql', DATA_DIR: join(root, 'unknown') });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/VECTOR_STORE: .*\(got "mysql"\)/);
      expect(existsSync(join(root, 'unknown'))).toBe(false);

      const missing = join(root, 'no-such-dir');
      const absent = await reindex([], { DATA_DIR: missing });
      expect(absent.code).toBe(4);
      expect(absent.stderr).toContain(`there is no hindsight memory store at ${join(missing, 'memory.db')}`);
      expect(absent.stderr).toContain('nothing was created');
      expect(existsSync(missing)).toBe(false);

      const batch = await reindex(['--batch-size', 'many'], { DATA_DIR: missing });
      expect(batch.code).toBe(1);
      expect(batch.stderr).toContain('--batch-size takes a positive integer, got "many"');
      const huge = await reindex(['--batch-size', '100000'], { DATA_DIR: missing });
      expect(huge.code).toBe(1);
    });
  });
});
