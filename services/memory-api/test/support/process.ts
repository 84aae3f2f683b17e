import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type ServiceProcess, spawnService as spawnChild } from '@hindsight/testing';

export { freePort, type ServiceProcess };

const SERVICES_DIR = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * A service of this repository (`memory-api`, `embedder`, …) as a real child process on a free
 * port unless PORT is given, waiting until /ready answers 200 unless told not to. The caller's env
 * is the whole configuration (a test that wants a temp store and prefix sets DATA_DIR and
 * REDIS_PREFIX; `spawnMemoryApi` of @hindsight/testing does that for the common case).
 */
export async function spawnService(
  name: string,
  env: Record<string, string>,
  options: { waitReady?: boolean } = {},
): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  return spawnChild({
    name,
    entry: 'src/main.ts',
    cwd: join(SERVICES_DIR, name),
    env: { ...process.env, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ...env, PORT: String(port) },
    port,
    readyPath: options.waitReady === false ? null : '/ready',
    readyTimeoutMs: 30_000,
  });
}
