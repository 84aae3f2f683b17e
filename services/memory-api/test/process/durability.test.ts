import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService } from '../support/process.ts';

let dataDir: string;
const env = () => ({ DATA_DIR: dataDir, REDIS_PREFIX: `test-${randomUUID()}` });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-durable-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('memory-api as a real process', () => {
  it('keeps a memory acknowledged with 2xx after SIGKILL and restart', async () => {
    const first = await spawnService('memory-api', env());
    const response = await fetch(`${first.url}/store`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'The user keeps a spare key under the blue flowerpot',
        memory_type: 'fact',
        user_id: 'durable',
      }),
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await spawnService('memory-api', env());
    try {
      const record = await fetch(`${second.url}/v1/memories/${id}`);
      expect(record.status).toBe(200);
      expect(((await record.json()) as { content: string }).content).toBe(
        'The user keeps a spare key under the blue flowerpot',
      );
    } finally {
      expect(await second.stop('SIGTERM')).toBe(143);
    }
  });

  it('refuses to listen on a non-loopback address without API keys', async () => {
    const service = await spawnService('memory-api', { ...env(), HOST: '0.0.0.0' }, { waitReady: false });
    const code = await Promise.race([service.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
    if (code === 'hung') await service.stop('SIGKILL');
    expect(code).toBe(78);
    expect(service.output()).toMatch(/refusing to listen on a non-loopback address without API keys/);
  });

  it('lists every configuration problem at once and exits', async () => {
    const service = await spawnService(
      'memory-api',
      { ...env(), PORT: '8001', MERGE_THRESHOLD: 'high', RANK_AGREEMENT: '-3' },
      { waitReady: false },
    );
    const code = await Promise.race([service.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
    if (code === 'hung') await service.stop('SIGKILL');
    expect(code).toBe(1);
    expect(service.output()).toMatch(/MERGE_THRESHOLD/);
    expect(service.output()).toMatch(/RANK_AGREEMENT/);
  });
});
