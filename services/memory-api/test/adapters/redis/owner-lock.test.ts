import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyError, DependencyUnavailableError } from '@hindsight/errors';
import { createLogger } from '@hindsight/logger';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisBacked } from '../../../src/adapters/redis/outage.ts';
import { ownerLockKey, RedisOwnerLock } from '../../../src/adapters/redis/owner-lock.ts';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test-${randomUUID()}`;
const log = createLogger({ service: 'owner-lock-test', level: 'silent' });
const lock = (settings = { leaseMs: 2000, waitMs: 2000 }) => new RedisOwnerLock(redis, prefix, settings, log);

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('RedisOwnerLock (real Redis)', () => {
  it('lets one holder of an owner work at a time, across lock instances (replicas)', async () => {
    const replicas = [lock(), lock(), lock()];
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (replicas[i % replicas.length] as RedisOwnerLock).hold('acme', ['ann'], async () => {
          inside += 1;
          most = Math.max(most, inside);
          await sleep(5);
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
  });

  it('does not serialise different owners, and takes a batch of owners all at once', async () => {
    const replica = lock();
    let inside = 0;
    let most = 0;
    const work = async () => {
      inside += 1;
      most = Math.max(most, inside);
      await sleep(30);
      inside -= 1;
    };
    await Promise.all([
      replica.hold('acme', ['a', 'b'], work),
      replica.hold('acme', ['c'], work),
      replica.hold('globex', ['a'], work),
    ]);
    expect(most).toBe(3);
    // Overlapping batches in opposite orders: no deadlock, one after the other.
    let order = '';
    await Promise.all([
      replica.hold('acme', ['x', 'y'], async () => {
        order += '1';
        await sleep(20);
      }),
      replica.hold('acme', ['y', 'x'], async () => {
        order += '2';
        await sleep(20);
      }),
    ]);
    expect(order.length).toBe(2);
  });

  it('answers busy after its bounded wait while another holder keeps the owner', async () => {
    const patient = lock({ leaseMs: 2000, waitMs: 2000 });
    const hasty = lock({ leaseMs: 2000, waitMs: 50 });
    let release: () => void = () => undefined;
    const held = patient.hold('acme', ['busy-owner'], () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(10);
    await expect(hasty.hold('acme', ['busy-owner'], async () => 'never')).rejects.toBeInstanceOf(BusyError);
    release();
    await held;
    expect(await hasty.hold('acme', ['busy-owner'], async () => 'now')).toBe('now');
  });

  it('frees an owner whose holder died once the lease ends, and keeps a live holder through renewals', async () => {
    const short = { leaseMs: 150, waitMs: 2000 };
    // A holder that never releases: its token is in Redis but nobody renews it (a killed replica).
    await redis.set(ownerLockKey(prefix, 'acme', 'orphan'), 'dead-token', 'PX', 150);
    const started = performance.now();
    expect(await lock(short).hold('acme', ['orphan'], async () => 'taken over')).toBe('taken over');
    expect(performance.now() - started).toBeLessThan(2000);

    // A live holder working three leases long is renewed, so nobody else gets in meanwhile.
    const replicaA = lock(short);
    const replicaB = lock({ leaseMs: 150, waitMs: 100 });
    const long = replicaA.hold('acme', ['long-work'], () => sleep(450));
    await sleep(200);
    await expect(replicaB.hold('acme', ['long-work'], async () => 'in')).rejects.toBeInstanceOf(BusyError);
    await long;
  });

  it('says Redis is unavailable when it cannot reach it (as memory-api wires it)', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    unreachable.on('error', () => undefined);
    const offline = redisBacked(
      new RedisOwnerLock(unreachable, prefix, { leaseMs: 1000, waitMs: 100 }, log),
      unreachable,
    );
    await expect(offline.hold('acme', ['u'], async () => 'x')).rejects.toBeInstanceOf(DependencyUnavailableError);
    unreachable.disconnect();
  });
});
