import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Makes sure the tests have a Redis: REDIS_URL when set, else 127.0.0.1:6379 when it
 * answers, else a throwaway `redis-server` on a free port (nothing on disk), whose
 * URL is exported as REDIS_URL to every test worker.
 */
export async function setup(): Promise<() => Promise<void>> {
  if (process.env.REDIS_URL) return async () => undefined;
  if (await answers(6379)) {
    process.env.REDIS_URL = 'redis://127.0.0.1:6379';
    return async () => undefined;
  }
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error('The tests need Redis: none answers on 127.0.0.1:6379 and redis-server is not installed (apt-get install -y redis-server, or brew install redis), or set REDIS_URL.');
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'hindsight-test-redis-'));
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (Date.now() > deadline) throw new Error('redis-server for the tests did not start within 10 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  return async () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.write('PING\r\n');
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}
