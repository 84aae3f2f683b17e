import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pollReady } from '@hindsight/http/poll-ready';

const GUARDIAN = fileURLToPath(new URL('./guardian.ts', import.meta.url));

/**
 * A Node child of the launcher, `node --import tsx <entry> [args…]`. Its own process group, so a
 * terminal's Ctrl-C reaches the launcher only, which stops the children in order. An IPC channel:
 * it closes when the launcher ends, however it ends (SIGKILL included), and the child then stops
 * by itself (`stopOnSignals` in every service) — no child outlives the launcher.
 */
export function spawnNodeChild(
  entry: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ChildProcess {
  // Resolved here, not at import: the test runner's module loader has no import.meta.resolve.
  const tsxLoader = fileURLToPath(import.meta.resolve('tsx'));
  return spawn(process.execPath, ['--import', tsxLoader, entry, ...args], {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
}

/** A program that is not a Node service (redis-server), run under guardian.ts so it too ends with the launcher. */
export function spawnGuarded(command: string, args: readonly string[]): ChildProcess {
  return spawnNodeChild(GUARDIAN, [command, ...args]);
}

/** Copies a child's output line by line, each line prefixed with the child's name. */
export function prefixLines(source: Readable | null, sink: Writable, prefix: string): void {
  if (!source) return;
  let pending = '';
  source.setEncoding('utf8');
  source.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) sink.write(`${prefix} ${line}\n`);
  });
  source.on('end', () => {
    if (pending !== '') sink.write(`${prefix} ${pending}\n`);
  });
}

/** Whether the port can be bound on the host right now (nobody else listens there). */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Resolves with the exit code/signal once the child has exited (at once when it already has). */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** SIGTERM, then SIGKILL when the child has not exited within `graceMs`; says which it took. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<'stopped' | 'killed'> {
  const done = exited(child);
  if (child.exitCode !== null || child.signalCode !== null) return 'stopped';
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const outcome = await Promise.race([done, late]);
  clearTimeout(timer);
  if (outcome !== 'late') return 'stopped';
  killGroup(child);
  await done;
  return 'killed';
}

/** SIGKILL to the child's process group (its own, see spawnNodeChild): a guarded program goes with its guardian. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch (error) {
    // Already gone (ESRCH): nothing left to kill.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Polls `url` until it answers 200, the child exits, or `timeoutMs` passes; says why it stopped waiting. */
export function waitUntilReady(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<'ready' | 'exited' | 'timeout'> {
  return pollReady(url, {
    timeoutMs,
    intervalMs: 250,
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
  });
}
