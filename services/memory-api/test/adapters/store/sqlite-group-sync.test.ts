import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { GroupSync, TransactionGroup } from '../../../src/adapters/store/sqlite/wal-sync.ts';

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

/** Lets the event loop turn twice: what a TransactionGroup does once a flush has ended is done by then. */
async function loopTurns(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A real SQLite table written through a TransactionGroup, counting the transactions it begins. */
function groupedTable(sync: GroupSync) {
  const db = new BetterSqlite3(':memory:');
  db.exec('CREATE TABLE parcels (name TEXT PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO parcels (name) VALUES (?)');
  let transactions = 0;
  const group = new TransactionGroup(sync, {
    transaction: (work) => {
      transactions++;
      db.transaction(work).immediate();
    },
    savepoint: (work) => db.transaction(work)(),
    inTransaction: () => db.inTransaction,
  });
  const stored = () =>
    (db.prepare('SELECT name FROM parcels ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name);
  return { db, group, insert, stored, transactions: () => transactions };
}

describe('group commit of transactions (TransactionGroup)', () => {
  it('applies the writes that arrive during a flush together after it, and answers each after the next flush', async () => {
    const { flush, started } = controlledFlush();
    const { db, group, insert, stored, transactions } = groupedTable(new GroupSync(flush));
    const acknowledged: string[] = [];
    const first = group.commit(() => insert.run('p00')).then(() => acknowledged.push('p00'));
    await loopTurns();
    // Nothing was on its way to the disk: the first write is applied at once and flushed.
    expect(stored()).toEqual(['p00']);
    expect(started).toHaveLength(1);
    const names = Array.from({ length: 16 }, (_, i) => `p${String(i + 1).padStart(2, '0')}`);
    const rest = names.map((name) => group.commit(() => insert.run(name)).then(() => acknowledged.push(name)));
    await loopTurns();
    // While that flush runs, the sixteen wait: no transaction of theirs yet.
    expect(stored()).toEqual(['p00']);
    expect(transactions()).toBe(1);

    started[0]?.finish();
    await first;
    await loopTurns();
    // Applied in one transaction, but not answered before the flush that covers them.
    expect(stored()).toEqual(['p00', ...names]);
    expect(transactions()).toBe(2);
    expect(acknowledged).toEqual(['p00']);
    expect(started).toHaveLength(2);
    started[1]?.finish();
    await Promise.all(rest);
    expect(acknowledged.sort()).toEqual(['p00', ...names]);
    db.close();
  });

  it('refuses a failing write alone and commits the others of its group', async () => {
    const { flush, started } = controlledFlush();
    const { db, group, insert, stored } = groupedTable(new GroupSync(flush));
    const first = group.commit(() => insert.run('taken'));
    await loopTurns();
    const outcomes = Promise.allSettled(
      ['a', 'taken', 'b'].map((name) =>
        group.commit(() => {
          insert.run(`${name}-note`);
          insert.run(name);
        }),
      ),
    );
    started[0]?.finish();
    await first;
    await loopTurns();
    started[1]?.finish();
    const [a, clash, b] = await outcomes;
    expect(a?.status).toBe('fulfilled');
    expect(b?.status).toBe('fulfilled');
    expect(clash?.status).toBe('rejected');
    expect(String((clash as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    // The refused write left nothing behind, not even the statement before the one that failed.
    expect(stored()).toEqual(['a', 'a-note', 'b', 'b-note', 'taken']);
    db.close();
  });

  it('fails every write of a group whose flush failed, and none of them is answered as durable', async () => {
    const { flush, started } = controlledFlush();
    const { db, group, insert } = groupedTable(new GroupSync(flush));
    const first = group.commit(() => insert.run('x'));
    await loopTurns();
    started[0]?.fail(new Error('EIO'));
    await expect(first).rejects.toThrow('EIO');
    const later = group.commit(() => insert.run('y'));
    await loopTurns();
    started[1]?.finish();
    await expect(later).resolves.toBeUndefined();
    db.close();
  });
});
