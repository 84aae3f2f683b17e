import { searchableText } from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import type { Statement } from 'better-sqlite3';
import { contextMargin, contextRewrites, NON_TURN_CATEGORIES, type TurnContextWindow } from '../turn-context.ts';
import type { KeywordEntry, SqliteKeywordIndex } from './keyword-search.ts';

/** Where a turn sits in its session: the store orders turns by occurred_at, then rowid (write order). */
export interface TurnPosition {
  tenant: string;
  userId: string;
  sessionId: string;
  occurredAt: number;
  rowid: number;
}

interface TurnRow {
  rowid: number;
  tenant: string;
  user_id: string;
  query: string | null;
  content: string;
}

/** Every context turn of a session: an active, episodic, non-summary memory of that user's session. */
const TURNS_OF_SESSION = `FROM memories WHERE tenant = ? AND user_id = ? AND session_id = ? AND layer = 'episodic'
  AND status = 'active' AND category NOT IN (${NON_TURN_CATEGORIES.map((c) => `'${c}'`).join(', ')})`;
const TURN_COLUMNS = 'SELECT rowid, tenant, user_id, query, content';
const BEFORE = '(occurred_at < ? OR (occurred_at = ? AND rowid < ?))';
const AFTER = '(occurred_at > ? OR (occurred_at = ? AND rowid > ?))';
const NOT_BEFORE = '(occurred_at > ? OR (occurred_at = ? AND rowid >= ?))';
const NOT_AFTER = '(occurred_at < ? OR (occurred_at = ? AND rowid <= ?))';

/**
 * The SQLite side of the turn-context index. A memory's keyword entry holds its own terms and the
 * terms of its neighbouring turns (`SqliteKeywordIndex` keeps them apart). Runs inside the store's write transactions, so the context of every
 * turn a commit or delete touches is rewritten atomically with it.
 */
export class SqliteTurnIndex {
  constructor(
    private readonly sql: (source: string) => Statement,
    private readonly keywords: SqliteKeywordIndex,
    private readonly window: TurnContextWindow,
  ) {}

  /** The keyword entry of a memory: its own terms and, for a turn, its neighbours' terms. */
  entry(record: TurnRow, neighbours: readonly TurnRow[] = []): KeywordEntry {
    return {
      own: keywordTokens(searchableText(record)),
      context: neighbours.flatMap((neighbour) => keywordTokens(neighbour.content)),
    };
  }

  /**
   * Rewrites the context of every turn whose window overlaps the changed positions, session by
   * session (call after the rows were written or deleted, in the same transaction).
   */
  refresh(changed: readonly TurnPosition[]): void {
    const spans = new Map<string, { from: TurnPosition; to: TurnPosition }>();
    for (const position of changed) {
      const key = `${position.tenant}\u001f${position.userId}\u001f${position.sessionId}`;
      const span = spans.get(key);
      if (!span) spans.set(key, { from: position, to: position });
      else {
        if (compare(position, span.from) < 0) span.from = position;
        if (compare(position, span.to) > 0) span.to = position;
      }
    }
    for (const { from, to } of spans.values()) this.refreshSpan(from, to);
  }

  /** Recomputes the context of every turn of every session (a rebuild of the keyword index). */
  rebuildAll(): void {
    const sessions = this.sql(
      `SELECT DISTINCT tenant, user_id, session_id FROM memories WHERE layer = 'episodic' AND session_id IS NOT NULL`,
    ).all() as Array<{ tenant: string; user_id: string; session_id: string }>;
    for (const s of sessions) {
      const turns = this.sql(`${TURN_COLUMNS} ${TURNS_OF_SESSION} ORDER BY occurred_at, rowid`).all(
        s.tenant,
        s.user_id,
        s.session_id,
      ) as TurnRow[];
      this.write(contextRewrites(turns, 0, 0, this.window));
    }
  }

  private refreshSpan(from: TurnPosition, to: TurnPosition): void {
    const owner = [from.tenant, from.userId, from.sessionId];
    const margin = contextMargin(this.window);
    const before = (
      this.sql(`${TURN_COLUMNS} ${TURNS_OF_SESSION} AND ${BEFORE} ORDER BY occurred_at DESC, rowid DESC LIMIT ?`).all(
        ...owner,
        from.occurredAt,
        from.occurredAt,
        from.rowid,
        margin,
      ) as TurnRow[]
    ).reverse();
    const inside = this.sql(
      `${TURN_COLUMNS} ${TURNS_OF_SESSION} AND ${NOT_BEFORE} AND ${NOT_AFTER} ORDER BY occurred_at, rowid`,
    ).all(...owner, from.occurredAt, from.occurredAt, from.rowid, to.occurredAt, to.occurredAt, to.rowid) as TurnRow[];
    const after = this.sql(`${TURN_COLUMNS} ${TURNS_OF_SESSION} AND ${AFTER} ORDER BY occurred_at, rowid LIMIT ?`).all(
      ...owner,
      to.occurredAt,
      to.occurredAt,
      to.rowid,
      margin,
    ) as TurnRow[];
    this.write(contextRewrites([...before, ...inside, ...after], before.length, after.length, this.window));
  }

  private write(rewrites: ReadonlyArray<{ turn: TurnRow; neighbours: TurnRow[] }>): void {
    for (const { turn, neighbours } of rewrites)
      this.keywords.put(BigInt(turn.rowid), turn, this.entry(turn, neighbours));
  }
}

function compare(a: TurnPosition, b: TurnPosition): number {
  return a.occurredAt - b.occurredAt || a.rowid - b.rowid;
}
