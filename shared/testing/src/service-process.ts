import { type ChildProcess, spawn } from 'node:child_process';
import { pollReady } from '@hindsight/http/poll-ready';

/** A service of this repository running as a real child process on loopback. */
export interface ServiceProcess {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
  /** What the process wrote to stdout and stderr so far, for failure messages and assertions. */
  output(): string;
  /** The exit code, or null when a signal ended the process. */
  exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) unless the process has already ended; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface SpawnServiceOptions {
  /** Names the process in failure messages. */
  name: string;
  /** The module `node --import tsx` runs: absolute, or relative to `cwd`. */
  entry: string;
  /** Command-line arguments after the entry. */
  args?: readonly string[];
  cwd: string;
  /** The child's whole environment; the caller decides what it inherits. */
  env: NodeJS.ProcessEnv;
  /** The port the service was told to listen on (its PORT). */
  port: number;
  /** Polled until it answers 200 before the process is handed over; null hands it over at once. */
  readyPath: string | null;
  readyTimeoutMs: number;
  /** After `stop()`, SIGKILL when the process is still alive this much later; it is waited for indefinitely when absent. */
  killAfterMs?: number;
  /** Keep only this many trailing characters of output, so a long run does not grow it without bound. */
  outputTailChars?: number;
}

/**
 * Starts `node --import tsx <entry>` and, unless `readyPath` is null, waits for it to answer there.
 * A process that never becomes ready is killed before the error is thrown: it has nothing to drain.
 */
export async function spawnService(options: SpawnServiceOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', options.entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (options.outputTailChars !== undefined) output = output.slice(-options.outputTailChars);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const service: ServiceProcess = {
    name: options.name,
    url: `http://127.0.0.1:${options.port}`,
    port: options.port,
    child,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      if (options.killAfterMs === undefined) return exited;
      const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  if (options.readyPath !== null) {
    try {
      await waitForReady(service, options.readyPath, options.readyTimeoutMs);
    } catch (error) {
      await service.stop('SIGKILL');
      throw error;
    }
  }
  return service;
}

/** Polls `${url}${path}` until it answers 200; fails early, with the output, when the process exits. */
export async function waitForReady(
  service: Pick<ServiceProcess, 'name' | 'url' | 'exited' | 'output'>,
  path: string,
  timeoutMs: number,
): Promise<void> {
  let exitCode: number | null | undefined;
  void service.exited.then((code) => {
    exitCode = code;
  });
  const outcome = await pollReady(`${service.url}${path}`, {
    timeoutMs,
    intervalMs: 150,
    hasExited: () => exitCode !== undefined,
  });
  if (outcome === 'ready') return;
  if (outcome === 'exited') {
    throw new Error(`${service.name} exited (code ${exitCode}) before it was ready:\n${service.output()}`);
  }
  throw new Error(`${service.name} was not ready within ${timeoutMs} ms:\n${service.output()}`);
}
