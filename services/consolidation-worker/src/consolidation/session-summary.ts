import type { Turn } from '@hindsight/memory-model';
import type { ExtractedItem } from '../extraction/port.ts';

const MAX_SUMMARY_CHARS = 2000;

/**
 * The episodic record of a session (DESIGN §2: what happened and when): its time span,
 * size and what was learned, one line per item; a session of small talk says so.
 */
export function sessionSummary(sessionId: string, turns: readonly Turn[], items: readonly ExtractedItem[]): string {
  const first = turns[0]?.timestamp.slice(0, 16).replace('T', ' ') ?? '';
  const last = turns.at(-1)?.timestamp.slice(0, 16).replace('T', ' ') ?? '';
  const userTurns = turns.filter((t) => t.role === 'user').length;
  const head = `Session ${sessionId} (${first}${last !== first ? ` to ${last}` : ''} UTC, ${turns.length} turns, ${userTurns} from the user)`;
  if (items.length === 0) return `${head}: small talk only; nothing durable was learned.`;
  let text = `${head}. Learned:`;
  for (const item of items) {
    const line = ` [${item.category}] ${item.value}`;
    if (text.length + line.length > MAX_SUMMARY_CHARS - 20) {
      text += ' …';
      break;
    }
    text += line;
  }
  return text;
}
