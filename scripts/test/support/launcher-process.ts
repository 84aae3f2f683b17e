import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '@hindsight/testing';

const ROOT = resolve(import.meta.dirname, '../../..');

/** `npm start` (scripts/launch.ts) as a real process, on free ports, with a redis-server of its own. */
export interface LauncherProcess {
  child: ChildProcess;
  /** What the launcher and its services wrote so far. */
  output(): string;
  /** The variables it was started with (ports, DATA_DIR, REDIS_URL). */
  env: Record<string, string>;
  /** Every port it was told to use: the four services' and its redis-server's. */
  ports: number[];
  /** The pids the launcher reported starting, by name (the services, and redis-server's guardian). */
  started(): Array<{ name: string; pid: number }>;
  startedPids(): number[];
  /** Kills whatever is left (launcher and reported children); for afterAll. */
  killAll(): void;
}

/** Whether a process with this pid still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `check` holds or `ms` passes; every wait in the launcher tests is bounded. */
export async function eventually(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts the launcher with `env` on top of this process's environment (without the store and key
 * settings a developer may have exported), REDIS_URL on a port where nothing listens so it starts
 * its own redis-server, and waits until it reports every service ready.
 */
export async function startLauncher(env: Record<string, string>): Promise<LauncherProcess> {
  const [agent, memoryApi, embedder, worker, redis] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const launchEnv: Record<string, string> = {
    AGENT_PORT: String(agent),
    MEMORY_API_PORT: String(memoryApi),
    EMBEDDER_PORT: String(embedder),
    WORKER_PORT: String(worker),
    REDIS_URL: `redis://127.0.0.1:${redis}`,
    LOG_LEVEL: 'warn',
    ...env,
  };
  const {
    QDRANT_URL: _qdrant,
    VECTOR_STORE: _store,
    DATABASE_URL: _database,
    API_KEYS: _keys,
    API_KEYS_FILE: _file,
    ...inherited
  } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/launch.ts'], {
    cwd: ROOT,
    env: { ...inherited, ...launchEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const started = () =>
    [...output.matchAll(/started ([\w-]+) \(pid (\d+)\)/g)].map((m) => ({ name: m[1] as string, pid: Number(m[2]) }));
  const startedPids = () => started().map((s) => s.pid);
  const launcher: LauncherProcess = {
    child,
    output: () => output,
    env: launchEnv,
    ports: [agent, memoryApi, embedder, worker, redis],
    started,
    startedPids,
    killAll() {
      // Each child leads its own process group: killing the group takes a guarded redis-server with its guardian.
      for (const pid of startedPids()) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // The group is gone already.
        }
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  await eventually(
    () => output.includes('all services ready') || child.exitCode !== null,
    170_000,
    'the launcher to report ready',
  );
  if (child.exitCode !== null) throw new Error(`launcher exited early:\n${output}`);
  return launcher;
}
