import { describe, expect, it } from 'vitest';
import { GroupSync } from '../../../src/adapters/store/sqlite/wal-sync.ts';

/** A flush the test finishes by hand, so which commits it covers is decided by the test, not by timing. */
function controlledFlush() {
  const started: Array<{ finish: () => void; fail: (error: Error) => void }> = [];
  const flush = () =>
    new Promise<void>((resolve, reject) => {
      started.push({ finish: resolve, fail: reject });
    });
  return { flush, started };
}

describe('group commit (GroupSync)', () => {
  it('acknowledges every writer that arrived during a flush with one shared next flush', async () => {
    const { flush, started } = controlledFlush();
    const sync = new GroupSync(flush);
    const acknowledged: number[] = [];
    const first = sync.afterCommit().then(() => acknowledged.push(0));
    expect(started).toHaveLength(1);
    // 16 writers commit while the first flush is on its way to the disk.
    const rest = Array.from({ length: 16 }, (_, i) => sync.afterCommit().then(() => acknowledged.push(i + 1)));
    expect(started).toHaveLength(1);

    started[0]?.finish();
    await first;
    // The first flush began before their commits, so it does not acknowledge them …
    await new Promise((resolve) => setImmediate(resolve));
    expect(acknowledged).toEqual([0]);
    // … the one flush started for all of them does.
    expect(started).toHaveLength(2);
    started[1]?.finish();
    await Promise.all(rest);
    expect(acknowledged.sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => i));
    expect(sync.flushCount).toBe(2);
  });

  it('fails the writers a failed flush was for, and flushes again for the next ones', async () => {
    const { flush, started } = controlledFlush();
    const sync = new GroupSync(flush);
    const first = sync.afterCommit();
    const waiting = sync.afterCommit();
    started[0]?.fail(new Error('EIO'));
    await expect(first).rejects.toThrow('EIO');
    await new Promise((resolve) => setImmediate(resolve));
    // The queued writers get their own flush: a failed one never acknowledges them.
    expect(started).toHaveLength(2);
    started[1]?.fail(new Error('disk full'));
    await expect(waiting).rejects.toThrow('disk full');
    const later = sync.afterCommit();
    expect(started).toHaveLength(3);
    started[2]?.finish();
    await expect(later).resolves.toBeUndefined();
  });
});
