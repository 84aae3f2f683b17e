import type { MemoryApiClient } from '@hindsight/memory-client';
import type { ExtractedItem } from '../extraction/port.ts';

/**
 * A decision taken back in a later session than the one that made it ("let's switch to Dash
 * instead of Streamlit") names the old answer (`replaces`) but cannot know the old decision's
 * slot. This looks the user's standing decisions up and gives the reversal the slot of the one
 * whose answer it replaces — or, for a bare "instead" with nothing in its own session to take
 * back, of the latest standing decision — so the write path sees one slot with a new answer.
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
      : // "We'll go with Foyles instead" and nothing in this session to reverse: the latest standing decision.
        standing[0];
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
