import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './free-port.ts';

/**
 * A throwaway `redis-server` of a test's own, on a loopback port: a test may kill, freeze and
 * restart it, which it must never do to the shared Redis at 127.0.0.1:6379. No persistence: a
 * restart comes back empty, as a Redis that lost its data would.
 */
export interface RedisServer {
  url: string;
  port: number;
  /** The running server process; replaced by `start()` after a `kill()`. */
  readonly child: ChildProcess;
  /** Ends the server at once (SIGKILL by default) and waits until it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port, resolving once it answers PING. */
  start(): Promise<void>;
}

export async function startRedisServer(options: { port?: number; readyTimeoutMs?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  let child = await launch(port, readyTimeoutMs);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get child() {
      return child;
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      // A frozen (SIGSTOP) server must be woken to act on anything but SIGKILL.
      if (signal !== 'SIGKILL') child.kill('SIGCONT');
      child.kill(signal);
      await gone;
    },
    async start() {
      if (child.exitCode === null && child.signalCode === null) return;
      child = await launch(port, readyTimeoutMs);
    },
  };
}

async function launch(port: number, readyTimeoutMs: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const deadline = Date.now() + readyTimeoutMs;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not come up on port ${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
