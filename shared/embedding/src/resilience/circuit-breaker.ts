/**
 * Stops calling a provider that keeps failing, so callers get an immediate, clear error instead
 * of waiting out timeouts and retries on every request. Closed → open after `failureThreshold`
 * consecutive failures; after `cooldownMs` one trial call is let through (half-open): success
 * closes the circuit, failure opens it for another cool-down.
 */
export interface CircuitBreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
  /** Injectable clock for tests. */
  now?: () => number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export class CircuitOpenError extends Error {
  constructor(readonly retryInMs: number) {
    super(`circuit open after repeated failures; next attempt in ${Math.ceil(retryInMs / 1000)} s`);
    this.name = 'CircuitOpenError';
  }
}

export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private trialInFlight = false;
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  /** Closes the circuit from outside, when the provider was seen to work (a readiness probe answered). */
  close(): void {
    this.failures = 0;
    this.openedAt = undefined;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    const state = this.state;
    if (state === 'open' || (state === 'half-open' && this.trialInFlight)) {
      const elapsed = this.now() - (this.openedAt ?? this.now());
      throw new CircuitOpenError(Math.max(0, this.options.cooldownMs - elapsed));
    }
    const trial = state === 'half-open';
    if (trial) this.trialInFlight = true;
    try {
      const result = await call();
      this.failures = 0;
      this.openedAt = undefined;
      return result;
    } catch (error) {
      this.failures++;
      if (trial || this.failures >= this.options.failureThreshold) this.openedAt = this.now();
      throw error;
    } finally {
      if (trial) this.trialInFlight = false;
    }
  }
}
