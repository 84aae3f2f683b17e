import type { Embedder } from '@hindsight/embedding';
import { healthRoutes, type ReadinessCheck, withTimeout } from '@hindsight/http';
import type { FastifyPluginAsync } from 'fastify';

export interface OperationsOptions {
  embedder: Embedder;
  /** A remote provider is probed at most this often; probes in between reuse the last result. */
  readinessCacheMs: number;
  readinessTimeoutMs: number;
}

/** `/health`: the process answers. `/ready`: the provider can embed now. */
export function operationsRoutes(options: OperationsOptions): FastifyPluginAsync {
  return healthRoutes([cachedProviderCheck(options)]);
}

/**
 * The provider check, bounded by its own deadline and cached as a whole, so a provider that hangs
 * is reported not ready for the cache period instead of being probed again by every poll.
 */
function cachedProviderCheck(options: OperationsOptions): ReadinessCheck {
  let last: { at: number; error: string | undefined } | undefined;
  const probe = async (): Promise<string | undefined> => {
    if (last && Date.now() - last.at < options.readinessCacheMs) return last.error;
    let error: string | undefined;
    try {
      const ms = options.readinessTimeoutMs;
      await withTimeout(options.embedder.check(), ms, `provider check gave no answer within ${ms} ms`);
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause);
    }
    last = { at: Date.now(), error };
    return error;
  };
  return {
    name: 'provider',
    async check() {
      const error = await probe();
      if (error !== undefined) throw new Error(error);
    },
  };
}
