import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemoryRecord } from '@hindsight/memory-model';
import { type MemoryApiProcess, spawnMemoryApi } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRecords, rest } from '../support/rest.ts';

const BIN = fileURLToPath(new URL('../../../../shared/cli/bin/hindsight.js', import.meta.url));
const KEY = 'transfer-key';
const ADMIN = 'transfer-admin';
const OTHER_KEY = 'transfer-other-tenant-key';
/** A tenant of the round-trip test alone: the whole tenant is exported and compared, whatever other tests wrote. */
const COPY_KEY = 'transfer-copy-tenant-key';
const SERVICE_ENV = { API_KEYS: `acme:${KEY},globex:${OTHER_KEY},copy:${COPY_KEY}`, ADMIN_API_KEY: ADMIN };

function cli(
  args: string[],
  url: string,
  key = KEY,
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, HINDSIGHT_URL: url, HINDSIGHT_API_KEY: key },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => (stdout += c));
  child.stderr?.on('data', (c) => (stderr += c));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hindsight ${args.join(' ')} did not finish within 90 s:\n${stderr}`));
    }, 90_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done };
}

const call = <T>(url: string, method: string, path: string, body?: unknown, key = KEY): Promise<T> =>
  rest<T>(url, method, path, { key, body });

/** A memory written for this test alone (KEY's tenant), as the API returns it: no test needs another's data. */
async function ownRecord(url: string, content: string): Promise<MemoryRecord> {
  const written = await call<{ id: string }>(url, 'POST', '/store', { content, memory_type: 'fact', user_id: 'u-own' });
  return call<MemoryRecord>(url, 'GET', `/v1/memories/${written.id}`);
}

describe('export then import into an empty data directory (real processes, real CLI)', () => {
  let source: MemoryApiProcess;
  let target: MemoryApiProcess;
  let dir: string;

  beforeAll(async () => {
    [source, target] = await Promise.all([spawnMemoryApi({ env: SERVICE_ENV }), spawnMemoryApi({ env: SERVICE_ENV })]);
    dir = await mkdtemp(join(tmpdir(), 'hindsight-transfer-test-'));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([source?.stop(), target?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reproduces every memory: ids, layers, metadata, history, status, times', async () => {
    const url = source.url;
    const own = <T>(base: string, method: string, path: string, payload?: unknown) =>
      call<T>(base, method, path, payload, COPY_KEY);
    await own(url, 'POST', '/v1/memories', {
      items: [
        {
          content: 'Met Priya at the climbing gym',
          user_id: 'u-a',
          occurred_at: '2023-04-01T10:00:00Z',
          metadata: { dia_id: 'D1:1', nested: { a: [1, null] } },
          tags: ['social'],
        },
        { content: 'Flight to Oslo is on May 3rd', user_id: 'u-a', memory_type: 'commitment', session_id: 's-1' },
        { content: 'Works night shifts at the hospital', user_id: 'u-b', memory_type: 'fact', confidence: 0.6 },
      ],
    });
    await own(url, 'POST', '/v1/memories', {
      content: 'The user likes coffee',
      memory_type: 'preference',
      user_id: 'u-a',
    });
    const superseding = await own<{ status: string; superseded_ids?: string[] }>(url, 'POST', '/v1/memories', {
      content: 'The user has quit coffee',
      memory_type: 'preference',
      user_id: 'u-a',
    });
    expect(superseding.status).toBe('superseded');
    const edited = await own<{ id: string }>(url, 'POST', '/v1/memories', {
      content: 'Lives in Porto',
      memory_type: 'fact',
      user_id: 'u-b',
    });
    await own(url, 'PATCH', `/v1/memories/${edited.id}`, { content: 'Lives in Lisbon', metadata: { moved: true } });
    const archived = await own<{ id: string }>(url, 'POST', '/v1/memories', {
      content: 'Old gym locker code is 12',
      user_id: 'u-b',
    });
    await own(url, 'PATCH', `/v1/memories/${archived.id}`, { status: 'archived' });

    const original = await allRecords(url, COPY_KEY);
    expect(original.size).toBe(7);
    expect([...original.values()].some((r) => r.status === 'superseded' && r.superseded_by !== null)).toBe(true);
    expect(original.get(edited.id)?.history.map((h) => h.action)).toEqual(['created', 'updated']);

    const file = join(dir, 'all.ndjson');
    const exported = await cli(['export', '--out', file, '--quiet'], url, COPY_KEY).done;
    expect(exported.code).toBe(0);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(7);

    const imported = await cli(['import', file, '--json', '--quiet'], target.url, COPY_KEY).done;
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ lines: 7, imported: 7, skipped: 0, duplicates: 0, quarantined: 0 });

    const copy = await allRecords(target.url, COPY_KEY);
    expect(copy).toEqual(original);

    // Re-embedded: the copy answers searches like the original.
    const found = await own<{ results: Array<{ id: string }> }>(target.url, 'POST', '/v1/search', {
      query: 'coffee',
      user_id: 'u-a',
    });
    expect(found.results[0]?.id).toBe([...original.values()].find((r) => r.content === 'The user has quit coffee')?.id);

    const again = await cli(['import', file, '--json', '--quiet'], target.url, COPY_KEY).done;
    expect(JSON.parse(again.stdout)).toEqual({ lines: 7, imported: 0, skipped: 7, duplicates: 0, quarantined: 0 });
  });

  it('rejects a bad line with its number and writes nothing of its chunk', async () => {
    const good = JSON.stringify({
      ...(await ownRecord(source.url, 'Keeps a sourdough starter in the fridge')),
      id: 'bad-chunk-good-line',
      content: 'A line that is fine',
    });
    const response = await fetch(`${target.url}/v1/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-ndjson' },
      body: `${good}\n{"id": "broken"\n`,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^line 2: not valid JSON/,
    );
    expect((await allRecords(target.url, KEY)).has('bad-chunk-good-line')).toBe(false);
  });

  it('imports a record whose id another tenant of the same store holds as it imports an unknown id (no existence oracle)', async () => {
    const record = await ownRecord(target.url, 'Collects vintage fountain pens');
    const before = JSON.stringify(await call(target.url, 'GET', `/v1/memories/${record?.id}`));
    const importing = (line: unknown) =>
      fetch(`${target.url}/v1/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OTHER_KEY}`, 'content-type': 'application/x-ndjson' },
        body: `${JSON.stringify(line)}\n`,
      });
    const taken = await importing(record);
    const unknown = await importing({ ...record, id: randomUUID(), user_id: 'u-oracle-unknown' });
    expect([taken.status, unknown.status]).toEqual([200, 200]);
    expect(await taken.json()).toEqual({ lines: 1, imported: 1, skipped: 0, duplicates: 0, quarantined: 0 });
    expect(await unknown.json()).toEqual({ lines: 1, imported: 1, skipped: 0, duplicates: 0, quarantined: 0 });
    // The other tenant holds its copy under an id of its own; the owner's record is untouched.
    const theirs = await call<{ items: MemoryRecord[] }>(
      target.url,
      'GET',
      `/v1/memories?user_id=${record?.user_id}`,
      undefined,
      OTHER_KEY,
    );
    expect(theirs.items.map((m) => m.content)).toEqual([record?.content]);
    expect(theirs.items[0]?.id).not.toBe(record?.id);
    expect(JSON.stringify(await call(target.url, 'GET', `/v1/memories/${record?.id}`))).toBe(before);
    // A re-run finds it under that id and skips it.
    expect(await (await importing(record)).json()).toEqual({
      lines: 1,
      imported: 0,
      skipped: 1,
      duplicates: 0,
      quarantined: 0,
    });
  });

  it('resumes a killed import without duplicates', async () => {
    const items = Array.from({ length: 1200 }, (_, i) => ({
      content: `Bulk memory number ${i} about topic ${i % 37}`,
      user_id: 'u-bulk',
    }));
    for (let i = 0; i < items.length; i += 600)
      await call(source.url, 'POST', '/v1/memories', { items: items.slice(i, i + 600) });
    const file = join(dir, 'bulk.ndjson');
    expect((await cli(['export', '--user', 'u-bulk', '--out', file, '--quiet'], source.url).done).code).toBe(0);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1200);

    const fresh = await spawnMemoryApi({ env: SERVICE_ENV });
    try {
      // Feed two server chunks (2 × 500 lines) through stdin, wait until both are committed, then kill the CLI mid-stream.
      const interrupted = cli(['import', '-', '--quiet'], fresh.url);
      interrupted.child.stdin?.write(`${lines.slice(0, 1000).join('\n')}\n`);
      const deadline = Date.now() + 60_000;
      let stored = 0;
      while (Date.now() < deadline) {
        stored = (await call<{ total: number }>(fresh.url, 'GET', '/debug/memory', undefined, ADMIN)).total;
        if (stored >= 1000) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(stored).toBe(1000);
      interrupted.child.kill('SIGKILL');
      await interrupted.done;

      const resumed = await cli(['import', file, '--json', '--quiet'], fresh.url).done;
      expect(resumed.code).toBe(0);
      expect(JSON.parse(resumed.stdout)).toEqual({
        lines: 1200,
        imported: 200,
        skipped: 1000,
        duplicates: 0,
        quarantined: 0,
      });
      const records = await allRecords(fresh.url, KEY);
      expect(records.size).toBe(1200);
      expect(new Set([...records.values()].map((r) => r.content)).size).toBe(1200);
      expect([...records.keys()].sort()).toEqual(lines.map((l) => (JSON.parse(l) as MemoryRecord).id).sort());
    } finally {
      await fresh.stop();
    }
  });

  it('refuses a JSON body on the import route', async () => {
    const response = await fetch(`${target.url}/v1/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(415);
  });
});
