import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const SERVICES_DIR = fileURLToPath(new URL('../../..', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** memory-api as a real child process (`tsx src/main.ts`), waiting until /ready answers 200. */
export function spawnMemoryApi(env: Record<string, string>, options: { waitReady?: boolean } = {}): Promise<ServiceProcess> {
  return spawnService('memory-api', env, options);
}

/** A service of this repository as a real child process, on a free port unless PORT is given. */
export async function spawnService(
  name: string,
  env: Record<string, string>,
  options: { waitReady?: boolean } = {},
): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: `${SERVICES_DIR}/${name}`,
    env: { ...process.env, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    url,
    child,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  if (options.waitReady !== false) await waitForReady(url, exited, () => output);
  return service;
}

/** Polls `${url}/ready` for up to 30 s; fails early when the process exits. */
export async function waitForReady(url: string, exited: Promise<number | null>, output: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`process exited before it was ready:\n${output()}`);
    try {
      const response = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`not ready within 30 s:\n${output()}`);
}
