import { WriteConflictError } from '@hindsight/errors';
import { StaleWriteError } from './store-port.ts';

/** Decisions made again after a concurrent change, before the caller gets a 409. */
const DECISION_ATTEMPTS = 4;

export interface DecideAgainOptions {
  /** Which failures mean "what was read changed meanwhile" (default: a stale version at commit). */
  concurrent?: (error: unknown) => boolean;
  onConflict?: (attempt: number, error: Error) => void;
}

/**
 * Runs a read-decide-commit step until it commits on the state it read: a commit refused because
 * that state changed meanwhile is decided again from fresh reads. Persistent contention ends as
 * a 409 `write_conflict` (nothing written), never as a 500.
 */
export async function decideAgain<T>(step: () => Promise<T>, options: DecideAgainOptions = {}): Promise<T> {
  const concurrent = options.concurrent ?? ((error: unknown) => error instanceof StaleWriteError);
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (!concurrent(error)) throw error;
      if (attempt >= DECISION_ATTEMPTS) {
        throw new WriteConflictError(
          `the memories this request depends on kept changing while it was decided (${attempt} attempts); nothing was written, send it again`,
        );
      }
      options.onConflict?.(attempt, error as Error);
    }
  }
}
