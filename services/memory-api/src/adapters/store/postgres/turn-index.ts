import { type MemoryRecord, searchableText } from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import type pg from 'pg';
import { CONTEXT_MARK, contextTermPrefix, ownerTermPrefix } from '../keywords.ts';
import { contextMargin, contextRewrites, NON_TURN_CATEGORIES, type TurnContextWindow } from '../turn-context.ts';
import type { SchemaNames } from './migrations.ts';

/** Where a turn sits in its session: turns are ordered by occurred_at, then seq (write order). */
export interface TurnPosition {
  userId: string;
  sessionId: string;
  occurredAt: Date;
  seq: string;
}

type TurnRow = Pick<MemoryRecord, 'tenant' | 'user_id' | 'query' | 'content'> & { seq: string };

/**
 * A memory's keyword columns: its analysed terms (repeats kept, for BM25's frequencies and length)
 * with its neighbouring turns' terms marked as context, and the owner-scoped keys the GIN index
 * finds it by (own and context keys apart, so document frequencies count own terms only).
 */
export function keywordColumns(
  record: TurnRow | Omit<TurnRow, 'seq'>,
  neighbours: readonly TurnRow[] = [],
): [string[], string[]] {
  const own = keywordTokens(searchableText(record));
  const context = neighbours.flatMap((n) => keywordTokens(n.content));
  const ownPrefix = ownerTermPrefix(record.tenant, record.user_id);
  const contextPrefix = contextTermPrefix(record.tenant, record.user_id);
  return [
    [...own, ...context.map((term) => CONTEXT_MARK + term)],
    [...new Set(own.map((term) => ownPrefix + term)), ...new Set(context.map((term) => contextPrefix + term))],
  ];
}

/**
 * The PostgreSQL side of the turn-context index: runs inside the store's write transactions (the
 * caller has named the tenant for row-level security), so the context of every turn a commit or
 * delete touches is rewritten atomically with it.
 */
export class PostgresTurnIndex {
  private readonly turns: string;

  constructor(
    private readonly names: SchemaNames,
    private readonly window: TurnContextWindow,
  ) {
    this.turns = `SELECT seq, tenant, user_id, query, content FROM ${names.memories}
      WHERE tenant = $1 AND user_id = $2 AND session_id = $3 AND layer = 'episodic' AND status = 'active'
        AND category NOT IN (${NON_TURN_CATEGORIES.map((c) => `'${c}'`).join(', ')})`;
  }

  /** Rewrites the context of every turn whose window overlaps the changed positions of `tenant`. */
  async refresh(client: pg.PoolClient, tenant: string, changed: readonly TurnPosition[]): Promise<void> {
    const spans = new Map<string, { from: TurnPosition; to: TurnPosition }>();
    for (const position of changed) {
      const key = `${position.userId}\u001f${position.sessionId}`;
      const span = spans.get(key);
      if (!span) spans.set(key, { from: position, to: position });
      else {
        if (compare(position, span.from) < 0) span.from = position;
        if (compare(position, span.to) > 0) span.to = position;
      }
    }
    const margin = contextMargin(this.window);
    for (const { from, to } of spans.values()) {
      const owner = [tenant, from.userId, from.sessionId];
      const before = (
        await client.query<TurnRow>(
          `${this.turns} AND (occurred_at, seq) < ($4::timestamptz, $5::bigint) ORDER BY occurred_at DESC, seq DESC LIMIT $6`,
          [...owner, from.occurredAt, from.seq, margin],
        )
      ).rows.reverse();
      const inside = (
        await client.query<TurnRow>(
          `${this.turns} AND (occurred_at, seq) >= ($4::timestamptz, $5::bigint)
             AND (occurred_at, seq) <= ($6::timestamptz, $7::bigint) ORDER BY occurred_at, seq`,
          [...owner, from.occurredAt, from.seq, to.occurredAt, to.seq],
        )
      ).rows;
      const after = (
        await client.query<TurnRow>(
          `${this.turns} AND (occurred_at, seq) > ($4::timestamptz, $5::bigint) ORDER BY occurred_at, seq LIMIT $6`,
          [...owner, to.occurredAt, to.seq, margin],
        )
      ).rows;
      await this.write(
        client,
        contextRewrites([...before, ...inside, ...after], before.length, after.length, this.window),
      );
    }
  }

  /** Recomputes the context of every turn of every session (a rebuild of the keyword terms). */
  async rebuildAll(client: pg.PoolClient): Promise<void> {
    const { rows: sessions } = await client.query<{ tenant: string; user_id: string; session_id: string }>(
      `SELECT DISTINCT tenant, user_id, session_id FROM ${this.names.memories}
       WHERE layer = 'episodic' AND session_id IS NOT NULL`,
    );
    for (const s of sessions) {
      const { rows } = await client.query<TurnRow>(`${this.turns} ORDER BY occurred_at, seq`, [
        s.tenant,
        s.user_id,
        s.session_id,
      ]);
      await this.write(client, contextRewrites(rows, 0, 0, this.window));
    }
  }

  private async write(
    client: pg.PoolClient,
    rewrites: ReadonlyArray<{ turn: TurnRow; neighbours: TurnRow[] }>,
  ): Promise<void> {
    for (const { turn, neighbours } of rewrites) {
      await client.query(
        `UPDATE ${this.names.memories} SET keyword_terms = $2::text[], keyword_keys = $3::text[] WHERE seq = $1::bigint`,
        [turn.seq, ...keywordColumns(turn, neighbours)],
      );
    }
  }
}

function compare(a: TurnPosition, b: TurnPosition): number {
  return a.occurredAt.getTime() - b.occurredAt.getTime() || Number(BigInt(a.seq) - BigInt(b.seq));
}
