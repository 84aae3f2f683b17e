import type { MemoryRecord } from '@hindsight/memory-model';
import { isSessionTurn } from '../../memory/session-turns.ts';

export { NON_TURN_CATEGORIES } from '../../memory/session-turns.ts';

/**
 * The turn-context index every store keeps (see the MemoryStore contract): an episodic memory that
 * is one turn of a session is found by the words of its exchange, so its keyword entry also holds
 * the terms of its neighbouring turns — `before` turns before it and `after` turns after it, in
 * the same user's session, ordered by `occurred_at` and then by write order. Its stored content
 * never changes; the neighbours' terms are marked as context and weigh less when ranked.
 */
export interface TurnContextWindow {
  before: number;
  after: number;
}

export const DEFAULT_TURN_CONTEXT: TurnContextWindow = { before: 2, after: 1 };

/** Whether a turn lends its words to its neighbours: only active turns do (quarantined text never). */
export function isContextTurn(record: Pick<MemoryRecord, 'layer' | 'session_id' | 'category' | 'status'>): boolean {
  return isSessionTurn(record) && record.status === 'active';
}

/** Turns loaded around a changed span on each side: enough for every turn whose context changes. */
export function contextMargin(window: TurnContextWindow): number {
  return window.before + window.after;
}

/**
 * Which turns get a new context after turns in a span of a session changed (were written,
 * edited, deactivated or deleted), and from which neighbours.
 *
 * `turns` are the session's context turns in order: up to `contextMargin` before the span
 * (`beforeSpan` of them), every turn inside it, up to `contextMargin` after it (`afterSpan`).
 * A margin shorter than `contextMargin` means the session starts or ends there. The turns whose
 * window overlaps the span are rewritten: those inside it, the `after` turns before it and the
 * `before` turns after it — each with its own `before`/`after` neighbours, all of them loaded.
 */
export function contextRewrites<T>(
  turns: readonly T[],
  beforeSpan: number,
  afterSpan: number,
  window: TurnContextWindow,
): Array<{ turn: T; neighbours: T[] }> {
  const spanEnd = turns.length - afterSpan;
  const from = Math.max(0, beforeSpan - window.after);
  const to = Math.min(turns.length, spanEnd + window.before);
  const rewrites: Array<{ turn: T; neighbours: T[] }> = [];
  for (let i = from; i < to; i++) {
    rewrites.push({
      turn: turns[i] as T,
      neighbours: [...turns.slice(Math.max(0, i - window.before), i), ...turns.slice(i + 1, i + 1 + window.after)],
    });
  }
  return rewrites;
}

/** `window` as a stable label, part of each store's keyword-index version (a change rebuilds it). */
export function windowLabel(window: TurnContextWindow): string {
  return `turn-context-b${window.before}a${window.after}`;
}
