import type { Logger } from '@hindsight/logger';

/** What a step raced against the search's deadline answers when the deadline comes first. */
export const TIMED_OUT = Symbol('timed out');

/**
 * The deadline of one search: each step is raced against it, and whether any step lost is
 * remembered for the answer's `timed_out`. A step that loses keeps running; its failure is logged,
 * never unhandled.
 */
export class SearchDeadline {
  timedOut = false;

  constructor(
    /** `performance.now()` at which the search must answer. */
    readonly at: number,
    private readonly log: Logger,
  ) {}

  remaining(): number {
    return this.at - performance.now();
  }

  /** `work`, or TIMED_OUT once the deadline (or `graceMs` from now, when later) has passed. */
  async race<T>(work: Promise<T>, graceMs = 0): Promise<T | typeof TIMED_OUT> {
    const remaining = Math.max(this.remaining(), graceMs);
    let timer: NodeJS.Timeout | undefined;
    // Past the deadline a step that has already finished still counts: race it against an expiry that is due now.
    const expiry =
      remaining <= 0
        ? Promise.resolve(TIMED_OUT)
        : new Promise<typeof TIMED_OUT>((resolve) => {
            timer = setTimeout(() => resolve(TIMED_OUT), remaining);
          });
    try {
      const outcome = await Promise.race([work, expiry]);
      if (outcome === TIMED_OUT) {
        this.timedOut = true;
        work.catch((error: unknown) => this.log.warn({ err: error }, 'search step failed after the deadline'));
      }
      return outcome;
    } finally {
      clearTimeout(timer);
    }
  }
}
