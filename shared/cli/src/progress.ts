export interface ProgressOptions {
  label: string;
  /** Units expected; unknown totals show a counter and a rate instead of a bar. */
  total?: number;
  /** What is counted ("turns", "questions", "bytes"). */
  unit?: string;
  stream?: NodeJS.WriteStream;
  /** Off for `--quiet` and `--json` callers that want a silent stderr. */
  enabled?: boolean;
}

export interface Progress {
  tick(count?: number): void;
  /** Current count; the bar can be moved to an absolute position too (bytes read). */
  set(value: number): void;
  done(message?: string): void;
}

const WIDTH = 28;
/** Redraws per second on a terminal; a log file gets a line every 25 %. */
const TTY_INTERVAL_MS = 100;

/**
 * A progress bar on stderr (stdout stays clean for tables and `--json`). On a terminal it redraws
 * in place; elsewhere (CI logs) it writes a few plain lines.
 */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const enabled = options.enabled ?? true;
  const tty = stream.isTTY === true;
  const started = performance.now();
  let value = 0;
  let lastDraw = 0;
  let lastQuarter = -1;

  const line = (): string => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? value / seconds : 0;
    const unit = options.unit ? ` ${options.unit}` : '';
    if (options.total === undefined || options.total <= 0) {
      return `${options.label} ${value}${unit} ${rate.toFixed(0)}/s`;
    }
    const share = Math.min(1, value / options.total);
    const filled = Math.round(share * WIDTH);
    const eta = rate > 0 ? Math.max(0, (options.total - value) / rate) : 0;
    return `${options.label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${value}/${options.total}${unit} ${rate.toFixed(0)}/s eta ${eta.toFixed(0)}s`;
  };

  const draw = (force = false) => {
    if (!enabled) return;
    const now = performance.now();
    if (tty) {
      if (!force && now - lastDraw < TTY_INTERVAL_MS) return;
      lastDraw = now;
      stream.write(`\r${line()}\u001b[K`);
      return;
    }
    const quarter = options.total ? Math.floor((value / options.total) * 4) : -1;
    if (force || quarter > lastQuarter) {
      lastQuarter = quarter;
      stream.write(`${line()}\n`);
    }
  };

  return {
    tick(count = 1) {
      value += count;
      draw();
    },
    set(next) {
      value = next;
      draw();
    },
    done(message) {
      if (!enabled) return;
      if (tty) stream.write(`\r${line()}\u001b[K\n`);
      else if (lastQuarter < 4) stream.write(`${line()}\n`);
      if (message) stream.write(`${message}\n`);
    },
  };
}
