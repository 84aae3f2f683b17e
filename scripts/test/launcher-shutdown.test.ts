import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, portIsFree } from '../launcher/children.ts';
import { alive, eventually, type LauncherProcess, startLauncher } from './support/launcher-process.ts';

/**
 * The launcher's end as a supervisor sees it (issue 12.10): no child outlives it, however it
 * ends, and its own shutdown takes at most SHUTDOWN_TIMEOUT_MS even when a child does not stop.
 */
let launcher: LauncherProcess | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  launcher?.killAll();
  launcher = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

const portsFree = async (ports: readonly number[]) =>
  (await Promise.all(ports.map((port) => portIsFree('127.0.0.1', port)))).every(Boolean);

describe('launcher shutdown', () => {
  it('leaves no service and no redis-server running when it is SIGKILLed', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hindsight-launch-kill-'));
    launcher = await startLauncher({ DATA_DIR: dataDir });
    const pids = launcher.startedPids();
    expect(pids.length).toBe(5); // four services and redis-server's guardian

    launcher.child.kill('SIGKILL');
    await exited(launcher.child);
    await eventually(() => pids.every((pid) => !alive(pid)), 30_000, `every child to exit:\n${launcher.output()}`);
    // The ports are free again: the embedder no longer holds its port, redis-server is gone too.
    await eventually(() => portsFree(launcher?.ports ?? []), 10_000, 'every port to be free');
  }, 240_000);

  it('finishes its shutdown within SHUTDOWN_TIMEOUT_MS when its children do not stop, killing them', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hindsight-launch-bound-'));
    launcher = await startLauncher({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: '4000' });
    const services = launcher.started().filter((s) => s.name !== 'redis-server');
    // Frozen services cannot act on SIGTERM: only the launcher's bound ends them (before: 15 s each).
    for (const { pid } of services) process.kill(pid, 'SIGSTOP');

    launcher.child.kill('SIGTERM');
    const code = await Promise.race([
      exited(launcher.child).then(({ code }) => code),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000)),
    ]);
    expect(code, launcher.output()).toBe(143);
    expect(launcher.output()).toMatch(/killed: still running 4000 ms into the shutdown/);
    await eventually(() => launcher?.startedPids().every((pid) => !alive(pid)) ?? true, 10_000, 'every child gone');
    await eventually(() => portsFree(launcher?.ports ?? []), 10_000, 'every port to be free');
  }, 240_000);
});
