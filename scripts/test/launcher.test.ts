import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited } from '../launcher/children.ts';
import { describeStore, launchSettings, planServices, presentServices } from '../launcher/topology.ts';
import { alive, eventually, type LauncherProcess, startLauncher } from './support/launcher-process.ts';

const root = resolve(import.meta.dirname, '../..');

// One launch, used and then stopped by its last test: the steps of that life run in the order written
// (every other suite, and these among the files, run in any order).
describe('local launcher (npm start)', { shuffle: false }, () => {
  let dataDir: string;
  let launcher: LauncherProcess;
  const env: Record<string, string> = {};
  const output = () => launcher.output();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hindsight-launch-'));
    // REDIS_URL names a port where nothing listens: the launcher must start its own redis-server.
    launcher = await startLauncher({ DATA_DIR: dataDir });
    Object.assign(env, launcher.env);
  }, 180_000);

  afterAll(async () => {
    // A failed test must not leave processes behind: kill whatever the launcher reported starting.
    launcher?.killAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  const presentNames = () => presentServices(planServices(launchSettings(root, env))).present;

  it('brings up every service present in the repository, each answering 200 on /ready', async () => {
    const present = presentNames();
    expect(present.map((s) => s.name)).toContain('memory-api');
    expect(present.map((s) => s.name)).toContain('embedder');
    for (const service of present) {
      const response = await fetch(`http://127.0.0.1:${service.port}/ready`, { signal: AbortSignal.timeout(5000) });
      expect(response.status, `${service.name} /ready`).toBe(200);
    }
    expect(output()).toMatch(/\[memory-api\] /);
  });

  it('wires memory-api to the embedder and Redis: a stored memory comes back from a search', async () => {
    const base = `http://127.0.0.1:${env.MEMORY_API_PORT}`;
    const stored = await fetch(`${base}/store`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'The user is allergic to peanuts',
        user_id: 'launcher-user',
        memory_type: 'fact',
      }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(stored.status).toBeLessThan(300);
    const retrieved = await fetch(`${base}/retrieve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'what is the user allergic to?', user_id: 'launcher-user' }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(retrieved.status).toBe(200);
    const body = (await retrieved.json()) as { results: Array<{ content: string }> };
    expect(body.results.map((r) => r.content)).toContain('The user is allergic to peanuts');
    expect(existsSync(join(dataDir, 'memory.db'))).toBe(true);
    expect(existsSync(join(dataDir, 'redis', 'appendonlydir'))).toBe(true);
  });

  it('stops every child and exits on one SIGINT', async () => {
    const pids = launcher.startedPids();
    expect(pids.length).toBe(presentNames().length + 1); // the services and its redis-server
    launcher.child.kill('SIGINT');
    const { code } = await Promise.race([
      exited(launcher.child),
      new Promise<never>((_, fail) =>
        setTimeout(() => fail(new Error(`launcher still running:\n${output()}`)), 60_000),
      ),
    ]);
    expect(code).toBe(130);
    await eventually(() => pids.every((pid) => !alive(pid)), 10_000, 'every child to exit');
    expect(output()).toContain('memory-api stopped');
    expect(output().indexOf('memory-api stopped')).toBeLessThan(output().indexOf('embedder stopped'));
    expect(output().indexOf('embedder stopped')).toBeLessThan(output().indexOf('redis stopped'));
  }, 90_000);
});

describe('launcher topology', () => {
  it('gives the worker the admin key, as compose does, so it can act for each tenant', () => {
    const root = '/repo';
    const byName = (env: Record<string, string>) =>
      new Map(planServices(launchSettings(root, env)).map((s) => [s.name, s.env] as const));
    expect(byName({ ADMIN_API_KEY: 'admin-1' }).get('consolidation-worker')?.MEMORY_API_KEY).toBe('admin-1');
    expect(byName({}).get('consolidation-worker')?.MEMORY_API_KEY).toBeUndefined();
    expect(byName({}).get('memory-api')?.EMBEDDER_URL).toBe('http://127.0.0.1:8002');
    expect(byName({ API_KEYS: 'acme:k1', ADMIN_API_KEY: 'admin-1' }).get('consolidation-worker')?.MEMORY_API_KEY).toBe(
      'admin-1',
    );
  });

  it('refuses tenant keys without the admin key, which the worker needs for every job', () => {
    for (const keys of [{ API_KEYS: 'acme:k1' }, { API_KEYS_FILE: '/run/secrets/api_keys' }]) {
      expect(() => launchSettings('/repo', keys)).toThrow(
        /ADMIN_API_KEY is not: the consolidation worker acts for every tenant/,
      );
      expect(() => launchSettings('/repo', { ...keys, ADMIN_API_KEY: '' })).toThrow(/set ADMIN_API_KEY too/);
    }
  });
});

describe('launcher store choice', () => {
  const memoryApiEnv = (env: Record<string, string>) =>
    planServices(launchSettings('/repo', env)).find((s) => s.name === 'memory-api')?.env;

  it('runs the embedded SQLite file unless told otherwise, Qdrant when only QDRANT_URL is given', () => {
    expect(memoryApiEnv({})?.VECTOR_STORE).toBe('sqlite');
    expect(memoryApiEnv({ QDRANT_URL: 'http://127.0.0.1:6333' })).toMatchObject({
      VECTOR_STORE: 'qdrant',
      QDRANT_URL: 'http://127.0.0.1:6333',
    });
  });

  it('honours VECTOR_STORE=postgres with DATABASE_URL, and names what is missing otherwise', () => {
    const url = 'postgres://hindsight:pw@127.0.0.1:5432/hindsight';
    expect(memoryApiEnv({ VECTOR_STORE: 'postgres', DATABASE_URL: url })).toMatchObject({
      VECTOR_STORE: 'postgres',
      DATABASE_URL: url,
    });
    expect(
      memoryApiEnv({ VECTOR_STORE: 'postgres', DATABASE_URL: url, QDRANT_URL: 'http://q:6333' })?.VECTOR_STORE,
    ).toBe('postgres');
    expect(() => launchSettings('/repo', { VECTOR_STORE: 'postgres' })).toThrow(
      /VECTOR_STORE=postgres needs DATABASE_URL/,
    );
    expect(() => launchSettings('/repo', { VECTOR_STORE: 'qdrant' })).toThrow(/VECTOR_STORE=qdrant needs QDRANT_URL/);
    expect(() => launchSettings('/repo', { VECTOR_STORE: 'mongo' })).toThrow(/sqlite, qdrant or postgres/);
    expect(describeStore(launchSettings('/repo', { VECTOR_STORE: 'postgres', DATABASE_URL: url }).store, '/d')).toBe(
      'PostgreSQL at postgres://hindsight@127.0.0.1:5432/hindsight',
    );
  });
});
