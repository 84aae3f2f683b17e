import type { Logger } from '@hindsight/logger';

export interface ShutdownOptions {
  /** The whole shutdown's bound (SHUTDOWN_TIMEOUT_MS): past it the process exits with whatever is still in flight. */
  timeoutMs: number;
}

/** What a stop routine is given: how long in-flight HTTP requests may drain before their connections are cut. */
export interface ShutdownBudget {
  drainMs: number;
}

/** Share of the bound in-flight requests get to finish; the rest is for closing queues, stores and Redis. */
const DRAIN_SHARE = 0.6;

/**
 * The process's one shutdown routine: on the first SIGINT or SIGTERM — or when the parent that
 * started it with an IPC channel (the local launcher) goes away, even SIGKILLed — log, run `stop`
 * (which closes in reverse start order), flush the logger, and exit with the code a shell gives
 * that signal (130, 143) so supervisors see why the process ended. Bounded: when `stop` has not
 * finished within `timeoutMs`, say what was left and exit all the same, so no request, job or
 * connection can keep a stopped service alive.
 */
export function stopOnSignals(
  log: Logger,
  options: ShutdownOptions,
  stop: (budget: ShutdownBudget) => Promise<void>,
): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals, why: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, why, timeoutMs: options.timeoutMs }, 'shutting down');
    const code = signal === 'SIGINT' ? 130 : 143;
    const bound = setTimeout(() => {
      log.error(
        { timeoutMs: options.timeoutMs },
        `shutdown did not finish within ${options.timeoutMs} ms (SHUTDOWN_TIMEOUT_MS); exiting with work still in flight`,
      );
      log.flush();
      process.exit(code);
    }, options.timeoutMs);
    try {
      await stop({ drainMs: Math.floor(options.timeoutMs * DRAIN_SHARE) });
    } catch (error) {
      log.error({ err: error }, 'error during shutdown');
    }
    clearTimeout(bound);
    log.flush();
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT', 'signal'));
  process.once('SIGTERM', () => void shutdown('SIGTERM', 'signal'));
  if (process.channel) {
    // The channel closes when the parent exits, however it ended; it must not keep the process alive by itself.
    process.channel.unref();
    process.once('disconnect', () => void shutdown('SIGTERM', 'the parent process went away'));
  }
}

/**
 * For `main().catch(...)`: the logger may not exist yet (bad config), so report on stderr and exit
 * with the error's own `exitCode` (a refused bind: 78), else 1.
 */
export function exitOnStartupFailure(service: string): (error: unknown) => never {
  return (error) => {
    process.stderr.write(`${service} failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    const code = (error as { exitCode?: unknown } | undefined)?.exitCode;
    process.exit(typeof code === 'number' ? code : 1);
  };
}
