import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../support/process.ts';

let api: ServiceProcess;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-console-process-'));
  api = await spawnService('memory-api', {
    DATA_DIR: dataDir,
    REDIS_PREFIX: `test-${randomUUID()}`,
    API_KEYS: 'acme:key-acme',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
}, 60_000);
afterAll(async () => {
  await api?.stop('SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('the memory-api process as `npm start` runs it serves the console, bundled from its sources with no build step', async () => {
  const page = await fetch(`${api.url}/console/`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const script = /src="(console\.js\?v=[^"]+)"/.exec(html)?.[1];
  expect(script).toBeDefined();
  const bundle = await fetch(`${api.url}/console/${script}`);
  expect(bundle.status).toBe(200);
  expect(await bundle.text()).toContain('/v1/whoami');
  const whoami = await fetch(`${api.url}/v1/whoami`, { headers: { authorization: 'Bearer key-acme' } });
  expect(await whoami.json()).toEqual({ tenant: 'acme', admin: false });
});
