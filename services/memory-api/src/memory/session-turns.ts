import type { MemoryRecord } from '@hindsight/memory-model';

/** Categories of episodic memories in a session that are not turns of it (a session summary restates them). */
export const NON_TURN_CATEGORIES = ['summary', 'profile'] as const;
const NOT_TURNS: ReadonlySet<string> = new Set(NON_TURN_CATEGORIES);

/**
 * Whether a memory is one turn of a conversation: an episodic memory of a session that is not its
 * summary. Turns are indexed with their neighbours (the stores' turn context) and ranked as
 * dialogue (search: dialogue focus, the weight of dense evidence).
 */
export function isSessionTurn(record: Pick<MemoryRecord, 'layer' | 'session_id' | 'category'>): boolean {
  return record.layer === 'episodic' && record.session_id !== null && !NOT_TURNS.has(record.category);
}
