export {
  type RecordedRequest,
  type Script as ChatCompletionsScript,
  startChatCompletionsServer,
} from './chat-completions-server.ts';
export { CHROMIUM_PATH, chromiumAvailable, launchChromium } from './chromium.ts';
export { freePort } from './free-port.ts';
export {
  deleteRedisKeys,
  type MemoryApiProcess,
  type MemoryApiSpawnOptions,
  REPO_ROOT,
  spawnMemoryApi,
  uniquePrefix,
} from './memory-api-process.ts';
export { type PgliteServer, type PgliteServerOptions, spawnPgliteServer, startPgliteServer } from './pglite-server.ts';
export { type RedisServer, startRedisServer } from './redis-server.ts';
export { seededRandom } from './seeded-random.ts';
export { type ServiceProcess, type SpawnServiceOptions, spawnService, waitForReady } from './service-process.ts';
