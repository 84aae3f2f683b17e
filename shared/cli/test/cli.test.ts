import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MemoryApiProcess, spawnMemoryApi } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/hindsight.js', import.meta.url));
const TENANT_KEY = 'cli-test-key';
const ADMIN_KEY = 'cli-test-admin';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real `hindsight` bin as a child process, bounded to 60 s. */
function hindsight(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, HINDSIGHT_URL: '', HINDSIGHT_API_KEY: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hindsight ${args.join(' ')} did not finish within 60 s:\n${stderr}`));
    }, 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}

describe('hindsight CLI against a real memory-api', () => {
  let api: MemoryApiProcess;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    api = await spawnMemoryApi({ env: { API_KEYS: `acme:${TENANT_KEY}`, ADMIN_API_KEY: ADMIN_KEY } });
    env = { HINDSIGHT_URL: api.url, HINDSIGHT_API_KEY: TENANT_KEY };
    dir = await mkdtemp(join(tmpdir(), 'hindsight-cli-test-'));
  }, 90_000);

  afterAll(async () => {
    await api?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores, searches and lists, in human and JSON form', async () => {
    const stored = await hindsight(
      ['store', 'The user is allergic to peanuts', '--user', 'cli-u1', '--type', 'fact', '--json'],
      env,
    );
    expect(stored.code).toBe(0);
    const { id, status } = JSON.parse(stored.stdout) as { id: string; status: string };
    expect(status).toBe('created');

    const again = await hindsight(
      ['store', 'The user is allergic to peanuts', '--user', 'cli-u1', '--type', 'fact'],
      env,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`duplicate ${id}`);

    const found = await hindsight(['search', 'does the user have a peanut allergy?', '--user', 'cli-u1'], env);
    expect(found.code).toBe(0);
    expect(found.stdout.split('\n')[0]).toContain('The user is allergic to peanuts');

    const listed = await hindsight(['list', '--user', 'cli-u1', '--json'], env);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { items: Array<{ id: string }> }).items.map((m) => m.id)).toEqual([id]);
  });

  it('forgets by filter, with a dry run first', async () => {
    await hindsight(['store', 'Parked on level 3', '--user', 'cli-u2', '--tag', 'parking'], env);
    const dry = await hindsight(['forget', '--user', 'cli-u2', '--tag', 'parking', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would forget 1 memories');
    const done = await hindsight(['forget', '--user', 'cli-u2', '--tag', 'parking', '--json'], env);
    expect(JSON.parse(done.stdout)).toMatchObject({ count: 1, dry_run: false });
    const empty = await hindsight(['list', '--user', 'cli-u2', '--json'], env);
    expect(JSON.parse(empty.stdout).items).toEqual([]);
  });

  it('exits 1 on usage errors, 2 on API errors, 3 when unreachable, 4 when not found', async () => {
    expect((await hindsight(['store'], env)).code).toBe(1);
    expect((await hindsight(['search', 'x', '--top-k', 'many'], env)).code).toBe(1);
    expect((await hindsight(['frobnicate'], env)).code).toBe(1);
    expect((await hindsight(['forget'], env)).code).toBe(1);

    const unauthorised = await hindsight(['list'], { ...env, HINDSIGHT_API_KEY: 'wrong' });
    expect(unauthorised.code).toBe(2);
    expect(unauthorised.stderr).toContain('401');
    const invalid = await hindsight(['store', 'x'.repeat(600), '--type', 'preference'], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('422');

    const unreachable = await hindsight(['list', '--url', 'http://127.0.0.1:1'], env);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('cannot reach memory-api');

    expect((await hindsight(['forget', '--id', 'no-such-memory'], env)).code).toBe(4);
  });

  it('shows stats with the admin key and refuses them without', async () => {
    // A memory and a search of its own, whichever tests ran before.
    expect((await hindsight(['store', 'The user rides a tandem bike', '--user', 'cli-stats'], env)).code).toBe(0);
    expect((await hindsight(['search', 'tandem bike', '--user', 'cli-stats'], env)).code).toBe(0);
    const refused = await hindsight(['stats'], env);
    expect(refused.code).toBe(2);
    const stats = await hindsight(['stats', '--json', '--api-key', ADMIN_KEY], env);
    expect(stats.code).toBe(0);
    const body = JSON.parse(stats.stdout) as { total: number; retrieval: { searches: number } };
    expect(body.total).toBeGreaterThanOrEqual(1);
    expect(body.retrieval.searches).toBeGreaterThanOrEqual(1);
  });

  it('exports NDJSON to a file and imports it back, skipping what is already there', async () => {
    await hindsight(
      ['store', 'Booked flights to Oslo for May', '--user', 'cli-u3', '--metadata', '{"trip":"oslo"}'],
      env,
    );
    const file = join(dir, 'export.ndjson');
    const exported = await hindsight(['export', '--user', 'cli-u3', '--out', file], env);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('exported 1 memories');
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ user_id: 'cli-u3', metadata: { trip: 'oslo' } });

    const reimported = await hindsight(['import', file, '--json'], env);
    expect(reimported.code).toBe(0);
    expect(JSON.parse(reimported.stdout)).toEqual({ lines: 1, imported: 0, skipped: 1, duplicates: 0, quarantined: 0 });

    const bad = join(dir, 'bad.ndjson');
    await writeFile(bad, `${lines[0]}\n{"not":"a record"}\n`);
    const rejected = await hindsight(['import', bad], env);
    expect(rejected.code).toBe(2);
    expect(rejected.stderr).toContain('line 2');
  });
});
