import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { spawnGuarded } from './children.ts';

export interface RedisTarget {
  host: string;
  port: number;
  password: string | undefined;
}

export function parseRedisUrl(url: string): RedisTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new Error(`REDIS_URL must start with redis:// (got "${url}")`);
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
  };
}

/**
 * Whether a Redis answers at host:port within `timeoutMs`. A server that wants a
 * password answers `-NOAUTH`: it is there, the services authenticate themselves.
 */
export function redisAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      const reply = data.toString();
      done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export const REDIS_INSTALL_HINT = [
  'no Redis answers and redis-server is not installed. Either:',
  '  - install it:  sudo apt-get install -y redis-server   (macOS: brew install redis), then run npm start again, or',
  '  - point REDIS_URL at a running Redis, e.g. REDIS_URL=redis://127.0.0.1:6379 npm start',
].join('\n');

/**
 * A `redis-server` for the local suite, configured like the compose service:
 * append-only persistence under `<dataDir>/redis`, no eviction (queues and
 * working memory must never be dropped silently), loopback only.
 */
export function startRedisServer(target: RedisTarget, dataDir: string): ChildProcess {
  const dir = join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const args = [
    '--port',
    String(target.port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--maxmemory-policy',
    'noeviction',
    ...(target.password ? ['--requirepass', target.password] : []),
  ];
  // Under a guardian: it ends with the launcher even when the launcher is killed; the launcher stops it last.
  return spawnGuarded('redis-server', args);
}
