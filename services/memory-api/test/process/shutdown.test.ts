import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../support/process.ts';

/**
 * SIGTERM with work in flight that would never end by itself (issue 12.10): a write waiting on a
 * frozen (SIGSTOPped) embedder and a client that never finishes sending its request. The process
 * must exit within SHUTDOWN_TIMEOUT_MS all the same.
 */
let dataDir: string;
let embedder: ServiceProcess | undefined;
let api: ServiceProcess | undefined;
const sockets: Socket[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-shutdown-'));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  embedder?.child.kill('SIGCONT');
  await api?.stop('SIGKILL');
  await embedder?.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

async function halfSentRequest(port: number): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    'POST /store HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"content":',
  );
}

describe('memory-api shutdown', () => {
  it('exits within SHUTDOWN_TIMEOUT_MS after SIGTERM while a write waits on a frozen embedder and a request is half sent', async () => {
    embedder = await spawnService('embedder', {});
    api = await spawnService('memory-api', {
      DATA_DIR: dataDir,
      REDIS_PREFIX: `test-${randomUUID()}`,
      EMBEDDER_URL: embedder.url,
      // Far longer than the shutdown bound: only the bound can end the wait.
      EMBEDDINGS_TIMEOUT_MS: '120000',
      SHUTDOWN_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'info',
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    });
    embedder.child.kill('SIGSTOP');
    const inFlight = fetch(`${api.url}/store`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'The user is learning the oboe', memory_type: 'fact', user_id: 'sd' }),
    }).then(
      (response) => response.status,
      (error: Error) => error.name,
    );
    await halfSentRequest(api.port);
    await new Promise((resolve) => setTimeout(resolve, 500));

    api.child.kill('SIGTERM');
    const code = await Promise.race([api.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))]);
    expect(code, api.output().slice(-3000)).toBe(143);
    // The cut write never got an answer that claims it was stored.
    expect(await inFlight).not.toBe(201);
  }, 90_000);
});
