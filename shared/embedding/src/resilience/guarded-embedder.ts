import { DependencyUnavailableError } from '@hindsight/errors';
import type { Embedder } from '../port.ts';
import { CircuitBreaker, CircuitOpenError } from './circuit-breaker.ts';

export interface GuardedEmbedderOptions {
  /** How long a call may take for up to `textsPerDeadline` texts; larger calls get as many times that. */
  deadlineMs: number;
  textsPerDeadline?: number;
  /** After a failed or late call, calls fail at once this long; then one call tries again. */
  cooldownMs: number;
  /** Names the dependency in errors (`embedder unavailable: …`). */
  name?: string;
  /** A call that fails after its deadline (its caller has been answered already). */
  onLateFailure?: (error: unknown) => void;
}

/**
 * An embedder that answers within a deadline or fails with `DependencyUnavailableError`, and that
 * is not waited for again while it keeps failing: a killed provider (refused connections) and a
 * frozen one (no answer: the deadline) both open the circuit, and until the cool-down has passed
 * every call fails at once, saying why. Then one call tries again; a success closes the circuit,
 * and so does a successful `check()` (which always asks the provider: `/ready` tells the truth).
 */
export class GuardedEmbedder implements Embedder {
  private readonly circuit: CircuitBreaker;
  private readonly name: string;
  private lastFailure = '';

  constructor(
    private readonly inner: Embedder,
    private readonly options: GuardedEmbedderOptions,
  ) {
    this.circuit = new CircuitBreaker({ failureThreshold: 1, cooldownMs: options.cooldownMs });
    this.name = options.name ?? 'embedder';
  }

  get model(): string {
    return this.inner.model;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    try {
      return await this.circuit.run(() => this.withinDeadline(texts));
    } catch (error) {
      if (error instanceof CircuitOpenError) {
        const next =
          error.retryInMs > 0
            ? `not called again for ${Math.ceil(error.retryInMs / 1000)} s`
            : 'a trial call is under way';
        throw new DependencyUnavailableError(this.name, `failing (${this.lastFailure}); ${next}`, { cause: error });
      }
      this.lastFailure = error instanceof Error ? error.message.replace(/^\w+ unavailable: /, '') : String(error);
      throw error instanceof DependencyUnavailableError
        ? error
        : new DependencyUnavailableError(this.name, this.lastFailure, { cause: error });
    }
  }

  async check(): Promise<void> {
    await this.inner.check();
    this.circuit.close();
  }

  /** Erasure must reach every cache below, whatever the circuit says: it is not guarded. */
  async align(query: string, texts: readonly string[]): Promise<number[] | undefined> {
    return this.inner.align?.(query, texts);
  }

  async forget(texts: readonly string[]): Promise<number> {
    return (await this.inner.forget?.(texts)) ?? 0;
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  private async withinDeadline(texts: readonly string[]): Promise<Float32Array[]> {
    const per = this.options.textsPerDeadline ?? 64;
    const deadlineMs = this.options.deadlineMs * Math.ceil(texts.length / per);
    const work = this.inner.embed(texts);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DependencyUnavailableError(this.name, `no vectors within ${deadlineMs} ms`)),
        deadlineMs,
      );
    });
    try {
      return await Promise.race([work, late]);
    } catch (error) {
      // The call goes on after its deadline; its eventual failure must not be an unhandled rejection.
      work.catch((lateError: unknown) => this.options.onLateFailure?.(lateError));
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
