import {
  loadWordTable,
  providerSettingsFromEnv,
  RemoteEmbedder,
  type SoftMatcher,
  WordSoftMatcher,
} from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import type { MemoryApiConfig } from '../config.ts';

/**
 * Where conversation turns are soft-matched word by word: the embedder service, which holds the
 * word vectors already (EMBEDDER_URL; memory-api loads none), or the built-in word table in
 * process when the built-in provider runs here. None with another provider or RANK_SOFT_MATCH_WEIGHT 0.
 */
export function createSoftMatcherFromConfig(
  config: MemoryApiConfig,
  log: Logger,
): { matcher: SoftMatcher; close(): Promise<void> } | undefined {
  if (config.RANK_SOFT_MATCH_WEIGHT <= 0 || config.RANK_SOFT_MATCH_CANDIDATES <= 0) return undefined;
  const provider = providerSettingsFromEnv(config, config.EMBEDDER_URL);
  if (provider.provider === 'remote') {
    const remote = new RemoteEmbedder({ url: provider.url, timeoutMs: provider.timeoutMs });
    log.info({ url: provider.url }, 'conversation turns are soft-matched by the embedder service');
    return { matcher: remote, close: () => remote.close() };
  }
  if (provider.provider === 'builtin') {
    const table = loadWordTable({ cacheDir: provider.wordTableDir });
    return { matcher: new WordSoftMatcher(table), close: async () => undefined };
  }
  log.info('conversation turns are not soft-matched: the word vectors come with the built-in provider');
  return undefined;
}
