import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadDerivedLexicon, loadWordTable } from '@hindsight/embedding';
import { freePort } from '@hindsight/testing';
import { REDIS_INSTALL_HINT, redisAnswers, redisServerInstalled, startRedisServer } from '../launcher/redis.ts';

/**
 * Makes sure the tests have a Redis: REDIS_URL when set, else 127.0.0.1:6379 when it
 * answers, else a throwaway `redis-server` on a free port, whose URL is exported as
 * REDIS_URL to every test worker.
 */
export async function setup(): Promise<() => Promise<void>> {
  // The built-in embedder's word tables are derived on first use (≈ 15 s); once here, before the
  // workers start, instead of in the first test that happens to start an embedder.
  loadDerivedLexicon(loadWordTable());
  if (process.env.REDIS_URL) return async () => undefined;
  if (await redisAnswers('127.0.0.1', 6379)) {
    process.env.REDIS_URL = 'redis://127.0.0.1:6379';
    return async () => undefined;
  }
  if (!redisServerInstalled()) throw new Error(`The tests need Redis: ${REDIS_INSTALL_HINT}`);
  const port = await freePort();
  const dataDir = mkdtempSync(`${tmpdir()}/hindsight-test-redis-`);
  const child = startRedisServer({ host: '127.0.0.1', port, password: undefined }, dataDir);
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers('127.0.0.1', port))) {
    if (Date.now() > deadline) throw new Error('redis-server for the tests did not start within 10 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  return async () => {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  };
}
