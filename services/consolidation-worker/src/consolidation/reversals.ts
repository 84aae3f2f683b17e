import type { MemoryApiClient } from '@hindsight/memory-client';
import type { ExtractedItem } from '../extraction/port.ts';

/**
 * A decision taken back in a later session than the one that made it ("let's switch to Dash
 * instead of Streamlit") names the old answer (`replaces`) but cannot know the old decision's
 * slot. This looks the user's standing decisions up and gives the reversal the slot of the one
 * whose answer it replaces, so the write path sees one slot with a new answer (and supersedes).
 * Runs before the extraction is checkpointed: a retry reuses the same items and keys.
 */
export async function adoptReversedSlots(
  api: MemoryApiClient,
  userId: string,
  items: readonly ExtractedItem[],
): Promise<ExtractedItem[]> {
  const reversals = items.filter((i) => i.category === 'decision' && i.replaces);
  if (reversals.length === 0) return [...items];
  const standing = (
    await api.list({ user_id: userId, memory_type: 'semantic', category: 'decision', status: 'active', limit: 200 })
  ).items;
  return items.map((item) => {
    const replaced = item.category === 'decision' ? item.replaces?.toLowerCase() : undefined;
    if (!replaced) return item;
    const target = standing.find((memory) => {
      const answer = typeof memory.metadata.answer === 'string' ? memory.metadata.answer.toLowerCase() : '';
      return answer.includes(replaced) || memory.content.toLowerCase().includes(replaced);
    });
    const key = target?.metadata.key;
    return typeof key === 'string' && key.length > 0 ? { ...item, key } : item;
  });
}
