import type { RawClient, RawRequest } from './support/http.ts';
import type { FuzzCase } from './support/requests.ts';

/**
 * The one place the attack suite lists 5xx it found in areas other engineers are fixing right
 * now. Each entry names its BOARD.md post, matches exactly the generated requests of that defect
 * (nothing broader), and replays one exact request in `it.fails` (known-failures.test.ts):
 * when the fix lands that test starts failing, and the entry must go. Never widen an entry to
 * make the suite green.
 */
export interface KnownFailure {
  /** Who fixes it and where it was posted. */
  board: string;
  /** The defect, as the BOARD post states it. */
  defect: string;
  matches(fuzz: FuzzCase): boolean;
  /** One exact request that shows it. */
  example: RawRequest;
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [];

export function knownFailureOf(fuzz: FuzzCase): KnownFailure | undefined {
  return KNOWN_FAILURES.find((known) => known.matches(fuzz));
}

/** A tenant-isolation probe finding owned elsewhere; `replay` shows it with exact requests. */
export interface KnownIsolationFailure {
  board: string;
  defect: string;
  matches(operation: string, problems: readonly string[]): boolean;
  /** Sends the exact requests and asserts what holds once the defect is fixed. */
  replay(client: RawClient): Promise<void>;
}

export const KNOWN_ISOLATION_FAILURES: readonly KnownIsolationFailure[] = [];

export function knownIsolationFailureOf(
  operation: string,
  problems: readonly string[],
): KnownIsolationFailure | undefined {
  return KNOWN_ISOLATION_FAILURES.find((known) => known.matches(operation, problems));
}
