import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { exited, portIsFree, prefixLines, spawnNodeChild, stopChild, waitUntilReady } from './children.ts';
import { parseRedisUrl, REDIS_INSTALL_HINT, redisAnswers, redisServerInstalled, startRedisServer } from './redis.ts';
import { describeStore, type LaunchSettings, planServices, presentServices, type ServiceSpec } from './topology.ts';

const LOOPBACK = '127.0.0.1';

interface Running {
  name: string;
  child: ChildProcess;
}

/**
 * The launcher talks to a person at a terminal and interleaves the services' own
 * (pino JSON) lines, so its own lines are plain text with the same kind of prefix.
 */
function say(message: string): void {
  process.stdout.write(`[launcher] ${message}\n`);
}

function complain(message: string): void {
  process.stderr.write(`[launcher] ${message}\n`);
}

/**
 * Runs the suite: Redis (found or started), then each present service in
 * dependency order, each awaited on `/ready`; one SIGINT/SIGTERM stops them all
 * in reverse order. Resolves with the exit code for the process.
 */
export async function runLauncher(settings: LaunchSettings): Promise<number> {
  const { present, missing } = presentServices(planServices(settings));
  for (const spec of missing) {
    say(`skipping ${spec.name}: ${spec.entry} does not exist yet`);
  }
  for (const spec of present) {
    if (!(await portIsFree(LOOPBACK, spec.port))) {
      complain(
        `port ${spec.port} (${spec.name}) is already in use on ${LOOPBACK}. Stop whatever listens there ` +
          `(e.g. an earlier npm start: lsof -i :${spec.port}) or pick another port with ${spec.portVariable}=<port>.`,
      );
      return 1;
    }
  }
  mkdirSync(settings.dataDir, { recursive: true });

  const running: Running[] = [];
  let redisChild: ChildProcess | undefined;
  let stopping: Promise<number> | undefined;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  const stopAll = (code: number, why: string): Promise<number> => {
    if (stopping) return stopping;
    // One bound for the whole shutdown: each child gets what is left of it, then SIGKILL.
    const deadline = Date.now() + settings.stopTimeoutMs;
    const stopWithin = async (name: string, child: ChildProcess) => {
      const outcome = await stopChild(child, Math.max(0, deadline - Date.now()));
      say(
        outcome === 'stopped'
          ? `${name} stopped`
          : `${name} killed: still running ${settings.stopTimeoutMs} ms into the shutdown (SHUTDOWN_TIMEOUT_MS)`,
      );
    };
    stopping = (async () => {
      say(
        `${why}: stopping ${
          [...running]
            .reverse()
            .map((r) => r.name)
            .join(', ') || 'nothing'
        }${redisChild ? ', redis' : ''}`,
      );
      for (const { name, child } of [...running].reverse()) await stopWithin(name, child);
      if (redisChild) await stopWithin('redis', redisChild);
      resolveDone(code);
      return code;
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => void stopAll(signal === 'SIGINT' ? 130 : 143, `received ${signal}`);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `npm start` does not pass SIGTERM on to its script: when npm goes away, the launcher is
  // re-parented and must not leave the services running on their own.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid !== parent) void stopAll(143, 'the parent process (npm) went away');
  }, 500);
  orphanWatch.unref();

  try {
    const redis = await ensureRedis(settings);
    if (redis === 'unavailable') return await stopAll(1, 'no Redis');
    redisChild = redis;

    for (const spec of present) {
      if (stopping) break;
      const child = startService(spec);
      running.push({ name: spec.name, child });
      say(`started ${spec.name} (pid ${child.pid}) on http://${LOOPBACK}:${spec.port}`);
      void exited(child).then(({ code, signal }) => {
        if (!stopping) void stopAll(1, `${spec.name} exited unexpectedly (code ${code}, signal ${signal})`);
      });
      const outcome = await waitUntilReady(`http://${LOOPBACK}:${spec.port}/ready`, child, settings.readyTimeoutMs);
      if (outcome === 'timeout') {
        return await stopAll(
          1,
          `${spec.name} did not answer 200 on /ready within ${settings.readyTimeoutMs} ms (see its lines above)`,
        );
      }
      if (outcome === 'exited') return await (stopping ?? stopAll(1, `${spec.name} exited during startup`));
      say(`${spec.name} ready`);
    }
    if (!stopping) {
      say(
        `all services ready — ${present.map((s) => `${s.name} http://${LOOPBACK}:${s.port}`).join(', ')}. ` +
          `Long-term store: ${describeStore(settings.store, settings.dataDir)}. Data in ${settings.dataDir}. ` +
          'Ctrl-C stops everything.',
      );
    }
    return await done;
  } finally {
    clearInterval(orphanWatch);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function startService(spec: ServiceSpec): ChildProcess {
  const child = spawnNodeChild(spec.entry, [], { cwd: spec.cwd, env: { ...process.env, ...spec.env } });
  prefixLines(child.stdout, process.stdout, `[${spec.name}]`);
  prefixLines(child.stderr, process.stderr, `[${spec.name}]`);
  return child;
}

/** The Redis at REDIS_URL; when none answers on loopback, a `redis-server` started here. */
async function ensureRedis(settings: LaunchSettings): Promise<ChildProcess | undefined | 'unavailable'> {
  const target = parseRedisUrl(settings.redisUrl);
  if (await redisAnswers(target.host, target.port)) {
    say(`using the Redis at ${target.host}:${target.port}`);
    return undefined;
  }
  if (target.host !== LOOPBACK && target.host !== 'localhost') {
    complain(
      `no Redis answers at ${target.host}:${target.port} (REDIS_URL). Start it, or unset REDIS_URL to use a local one.`,
    );
    return 'unavailable';
  }
  if (!redisServerInstalled()) {
    complain(REDIS_INSTALL_HINT);
    return 'unavailable';
  }
  const child = startRedisServer(target, settings.dataDir);
  prefixLines(child.stdout, process.stdout, '[redis]');
  prefixLines(child.stderr, process.stderr, '[redis]');
  say(
    `started redis-server (pid ${child.pid}) on ${LOOPBACK}:${target.port}, append-only files in ${settings.dataDir}/redis`,
  );
  const deadline = Date.now() + 15_000;
  while (!(await redisAnswers(LOOPBACK, target.port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      complain(`redis-server did not come up on port ${target.port} (see its lines above)`);
      await stopChild(child, settings.stopTimeoutMs);
      return 'unavailable';
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return child;
}
