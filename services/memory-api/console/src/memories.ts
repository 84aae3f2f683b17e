import type { MemoryRecord } from '@hindsight/memory-model';
import type { Api } from './api.ts';

/** At most this many memories are read for one page of the console (the newest are not guaranteed). */
export const READ_CAP = 5000;

export interface MemoryRead {
  items: MemoryRecord[];
  /** More matched than READ_CAP. */
  capped: boolean;
}

/** Follows `next_cursor` through `GET /v1/memories` until the end or READ_CAP. */
export async function readMemories(api: Api, query: Record<string, string | undefined>): Promise<MemoryRead> {
  const items: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get<{ items: MemoryRecord[]; next_cursor: string | null }>('/v1/memories', {
      ...query,
      limit: 1000,
      cursor,
    });
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && items.length < READ_CAP);
  return { items, capped: cursor !== undefined };
}

/** Newest `occurred_at` first. */
export function byOccurredDesc(a: MemoryRecord, b: MemoryRecord): number {
  return b.occurred_at.localeCompare(a.occurred_at) || b.created_at.localeCompare(a.created_at);
}
