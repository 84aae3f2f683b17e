/** One dependency a service needs before it can serve: resolves when it answers, rejects with why not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export interface CheckOutcome {
  ok: boolean;
  error?: string;
}

export interface Readiness {
  status: 'ready' | 'not_ready';
  checks: Record<string, CheckOutcome>;
}

/**
 * Runs every check at once. With `timeoutMs`, a check that has not answered by then counts as
 * failed; without it each check runs to its own end (for checks whose client already has a deadline).
 */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs?: number): Promise<Readiness> {
  const outcomes = await Promise.all(
    checks.map(async (c): Promise<[string, CheckOutcome]> => {
      try {
        await (timeoutMs === undefined ? c.check() : withTimeout(c.check(), timeoutMs));
        return [c.name, { ok: true }];
      } catch (error) {
        return [c.name, { ok: false, error: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  const ready = outcomes.every(([, outcome]) => outcome.ok);
  return { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(outcomes) };
}

/** Rejects with `message` when `work` has not settled within `ms`; the timer never outlives the race. */
export function withTimeout<T>(work: Promise<T>, ms: number, message = `no answer within ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
