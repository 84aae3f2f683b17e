import type { MemoryApiClient } from '@hindsight/memory-client';
import type { MemoryRecord } from '@hindsight/memory-model';
import type { ExtractedItem } from '../extraction/port.ts';

/** Words of four letters or more, function words aside: what two decisions may share. */
function wordsOf(text: string): Set<string> {
  const stop = new Set(['user', 'decided', 'with', 'that', 'this', 'instead', 'make', 'then']);
  return new Set((text.toLowerCase().match(/\p{L}{4,}|\p{Script=Han}{2}/gu) ?? []).filter((w) => !stop.has(w)));
}

function closest(item: ExtractedItem, standing: readonly MemoryRecord[]): MemoryRecord | undefined {
  const own = wordsOf(`${item.value} ${item.answer ?? ''}`);
  let best: MemoryRecord | undefined;
  let bestShared = 0;
  for (const memory of standing) {
    const shared = [...wordsOf(memory.content)].filter((w) => own.has(w)).length;
    if (shared > bestShared) {
      best = memory;
      bestShared = shared;
    }
  }
  return best ?? standing[0];
}

/**
 * A decision taken back in a later session than the one that made it ("let's switch to Dash
 * instead of Streamlit") names the old answer (`replaces`) but cannot know the old decision's
 * slot. This looks the user's standing decisions up and gives the reversal the slot of the one
 * whose answer it replaces — or, for a bare "instead" with nothing in its own session to take
 * back, of the standing decision it shares most words with (else the latest) — so the write path
 * sees one slot with a new answer.
 * Runs before the extraction is checkpointed: a retry reuses the same items and keys.
 */
export async function adoptReversedSlots(
  api: MemoryApiClient,
  userId: string,
  items: readonly ExtractedItem[],
): Promise<ExtractedItem[]> {
  const reversals = items.filter((i) => i.category === 'decision' && (i.replaces || i.reverses));
  if (reversals.length === 0) return [...items];
  const standing = (
    await api.list({ user_id: userId, memory_type: 'semantic', category: 'decision', status: 'active', limit: 200 })
  ).items.sort((a, b) => b.occurred_at.localeCompare(a.occurred_at));
  return items.map((item) => {
    if (item.category !== 'decision' || !(item.replaces || item.reverses)) return item;
    const replaced = item.replaces?.toLowerCase();
    const target = replaced
      ? standing.find((memory) => {
          const answer = typeof memory.metadata.answer === 'string' ? memory.metadata.answer.toLowerCase() : '';
          return answer.includes(replaced) || memory.content.toLowerCase().includes(replaced);
        })
      : // "Let's make the buns 3.50 instead" and nothing in this session to reverse: the standing decision
        // that shares the most words with it ("price the buns at 3 pounds"), else the latest one.
        closest(item, standing);
    const key = target?.metadata.key;
    const answer = target?.metadata.answer;
    if (typeof key !== 'string' || key.length === 0) return item;
    return {
      ...item,
      key,
      ...(!item.replaces && typeof answer === 'string' ? { replaces: answer.slice(0, 120) } : {}),
    };
  });
}
