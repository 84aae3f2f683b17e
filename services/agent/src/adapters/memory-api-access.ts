import { DependencyUnavailableError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import { type MemoryApiClient, MemoryApiError } from '@hindsight/memory-client';

/**
 * memory-api refused the agent's own key. The agent's caller is not at fault, so this is the
 * agent's outage (503), never memory-api's 401 passed on as if the caller had sent a bad key.
 */
export class MemoryApiKeyRefusedError extends DependencyUnavailableError {
  constructor(options?: ErrorOptions) {
    super('memory-api', "it refused the agent's key: check MEMORY_API_KEY", options);
  }
}

/** memory-api answered 401/403 to the agent's key. */
export function isKeyRefusal(error: unknown): boolean {
  return error instanceof MemoryApiError && (error.status === 401 || error.status === 403);
}

/**
 * At start, before serving anyone: asks memory-api which tenant MEMORY_API_KEY acts for. A
 * refusal ends the start with a message naming MEMORY_API_KEY; a memory-api that is not up yet
 * does not (the agent may start first; `/ready` reports memory-api meanwhile).
 */
export async function checkMemoryApiKey(
  client: MemoryApiClient,
  setting: { url: string; keySet: boolean },
  log: Logger,
): Promise<void> {
  try {
    const identity = await client.whoami();
    log.info({ tenant: identity.tenant }, 'memory-api accepts the agent key');
  } catch (error) {
    if (isKeyRefusal(error)) {
      throw new Error(
        setting.keySet
          ? `memory-api at ${setting.url} refused MEMORY_API_KEY: set it to one of memory-api's tenant keys (its API_KEYS)`
          : `memory-api at ${setting.url} requires an API key: set MEMORY_API_KEY to one of its tenant keys (its API_KEYS)`,
      );
    }
    // Not up yet, or not answering the check: the agent starts and /ready reports memory-api until it does.
    log.warn({ err: error }, 'could not check MEMORY_API_KEY against memory-api yet');
  }
}
