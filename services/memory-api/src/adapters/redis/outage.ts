import { DependencyUnavailableError, describeError, isAppError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import { Redis } from 'ioredis';

/**
 * memory-api's Redis client. A producer answering HTTP requests fails fast: no offline queue
 * (a command sent while disconnected fails at once instead of waiting for a reconnect), no
 * resend of commands in flight when the connection drops (they may have run). Resolves once the
 * first connection attempt has settled, either way (at most `waitMs`): memory-api then starts
 * with Redis or without it, and the client keeps reconnecting, so it recovers whenever Redis does.
 */
export async function openProducerRedis(url: string, log: Logger, waitMs = 5000): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, connectionName: 'memory-api' });
  // One line when the connection goes and one when it is back, not one per reconnect attempt.
  let down = false;
  redis.on('error', (error) => {
    if (down) return;
    down = true;
    log.error(
      { err: error, redis: where(redis) },
      'redis unavailable; requests that need it answer 503 until it is back',
    );
  });
  redis.on('ready', () => {
    if (down) log.info({ redis: where(redis) }, 'redis connection is back');
    down = false;
  });
  await firstAttempt(redis, waitMs);
  return redis;
}

function firstAttempt(redis: Redis, waitMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      redis.off('ready', settle);
      redis.off('error', settle);
      resolve();
    };
    const timer = setTimeout(settle, waitMs);
    redis.once('ready', settle);
    redis.once('error', settle);
  });
}

/** Closes the client whether or not it is connected (QUIT needs a connection). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit();
  else redis.disconnect();
}

/** The `/ready` check: connected, and answering. */
export async function checkRedis(redis: Redis): Promise<void> {
  ensureConnected(redis);
  try {
    await redis.ping();
  } catch (error) {
    throw asOutage(error, redis);
  }
}

/**
 * The one place Redis outages become `DependencyUnavailableError` (503 `dependency_unavailable`,
 * "redis unavailable: …"): every async method of a Redis-backed adapter (working memory, queue
 * producer, idempotency keys, owner lock) fails at once while the client is not connected, and a
 * connection failure during the call is mapped too (`close` is left as it is). Other errors (replies, domain errors, errors
 * of the work an adapter runs) pass through unchanged.
 */
export function redisBacked<T extends object>(adapter: T, redis: Redis): T {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'constructor') return value;
      // Shutting down never waits for a connection.
      if (property === 'close') return value.bind(target);
      return async (...args: unknown[]) => {
        ensureConnected(redis);
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error) {
          throw asOutage(error, redis);
        }
      };
    },
  });
}

function ensureConnected(redis: Redis): void {
  if (redis.status !== 'ready') {
    throw new DependencyUnavailableError('redis', `not connected to ${where(redis)} (${redis.status})`);
  }
}

/** ioredis's and BullMQ's ways of saying the connection is gone, and Redis states that refuse commands. */
const OUTAGE_NAMES = new Set(['MaxRetriesPerRequestError', 'AbortError', 'ConnectionClosedError']);
const OUTAGE_MESSAGES = [/^Connection is closed/, /^Stream isn't writeable/, /^Command aborted/];
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNAVAILABLE_REPLIES = /^(LOADING|OOM|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|NOAUTH|WRONGPASS) /;

function asOutage(error: unknown, redis: Redis): unknown {
  if (!(error instanceof Error) || isAppError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const outage =
    OUTAGE_NAMES.has(error.name) ||
    OUTAGE_MESSAGES.some((pattern) => pattern.test(error.message)) ||
    (typeof code === 'string' && OUTAGE_CODES.has(code)) ||
    (error.name === 'ReplyError' && UNAVAILABLE_REPLIES.test(error.message));
  if (!outage) return error;
  return new DependencyUnavailableError('redis', `${describeError(error)} (${where(redis)})`, { cause: error });
}

/** host:port, never the password. */
function where(redis: Redis): string {
  return `${redis.options.host ?? '127.0.0.1'}:${redis.options.port ?? 6379}`;
}
