import { estimateTokens } from '@hindsight/text';

export interface ContextItem {
  id: string;
  content: string;
  category: string;
  occurredAt: string;
  supersededBy: string | null;
}

/** One prompt-ready line: `[2024-03-15] preference: likes concise answers`. */
export function contextLine(item: ContextItem): string {
  const superseded = item.supersededBy ? ' (superseded)' : '';
  return `[${item.occurredAt.slice(0, 10)}] ${item.category}${superseded}: ${item.content.replace(/\s+/g, ' ').trim()}`;
}

/**
 * Takes items best-first while their lines fit the token budget. Returns what fit, the
 * tokens their lines spend, and whether anything was cut.
 */
export function fitToBudget<T extends ContextItem>(
  items: readonly T[],
  budget: number,
): { kept: T[]; tokens: number; truncated: boolean } {
  const kept: T[] = [];
  let spent = 0;
  for (const item of items) {
    const cost = estimateTokens(contextLine(item)) + 1;
    if (spent + cost > budget) return { kept, tokens: spent, truncated: true };
    spent += cost;
    kept.push(item);
  }
  return { kept, tokens: spent, truncated: false };
}

/** Context text; an item superseded by another in the list comes right after it (newest first). */
export function renderContext(items: readonly ContextItem[]): string {
  const byId = new Map(items.map((i) => [i.id, i]));
  const placed = new Set<string>();
  const lines: string[] = [];
  const place = (item: ContextItem) => {
    if (placed.has(item.id)) return;
    placed.add(item.id);
    lines.push(contextLine(item));
    for (const older of items) if (older.supersededBy === item.id) place(older);
  };
  for (const item of items) {
    const newer = item.supersededBy ? byId.get(item.supersededBy) : undefined;
    if (newer && !placed.has(newer.id)) continue;
    place(item);
  }
  for (const item of items) place(item);
  return lines.join('\n');
}
