import type { SummarizePayload, SummarizeResult } from '@hindsight/jobs';
import type { MemoryApiClient } from '@hindsight/memory-client';
import type { MemoryRecord } from '@hindsight/memory-model';

/** A profile is short: it goes into every system prompt. */
const MAX_PROFILE_CHARS = 480;
const CATEGORY_ORDER = ['fact', 'preference', 'commitment', 'decision', 'todo', 'lesson', 'error'];

/** The profile text of one user: their strongest active semantic memories, most important kinds first. */
export function profileText(memories: readonly MemoryRecord[]): { text: string; used: string[] } {
  const ranked = memories
    .filter((m) => m.category !== 'profile' && m.status === 'active')
    .sort((a, b) => {
      const order = rank(a.category) - rank(b.category);
      if (order !== 0) return order;
      return b.confidence * b.proof_count - a.confidence * a.proof_count || b.updated_at.localeCompare(a.updated_at);
    });
  let text = '';
  const used: string[] = [];
  for (const memory of ranked) {
    const line = `${text ? ' ' : ''}${memory.content.trim()}`;
    if (text.length + line.length > MAX_PROFILE_CHARS) continue;
    text += line;
    used.push(memory.id);
  }
  return { text, used };
}

function rank(category: string): number {
  const index = CATEGORY_ORDER.indexOf(category);
  return index === -1 ? CATEGORY_ORDER.length : index;
}

/** Rewrites one user's profile summary from their semantic memories (through memory-api). */
export async function summarizeUser(
  api: MemoryApiClient,
  userId: string,
): Promise<{ memories: number; chars: number }> {
  const memories: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.list({ user_id: userId, memory_type: 'semantic', status: 'active', limit: 500, cursor });
    memories.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && memories.length < 2000);
  const { text, used } = profileText(memories);
  if (!text) return { memories: 0, chars: 0 };
  await api.putUserSummary(userId, { content: text, source_memory_ids: used });
  return { memories: used.length, chars: text.length };
}

export interface SummarizeDeps {
  apiFor(tenant: string): MemoryApiClient;
  /** (tenant, user) pairs whose sessions were consolidated within the window. */
  recentlyConsolidated(hours: number): Promise<Array<{ tenant: string; userId: string }>>;
}

export async function runSummarize(deps: SummarizeDeps, payload: SummarizePayload): Promise<SummarizeResult> {
  const started = performance.now();
  const users =
    'recent_hours' in payload
      ? await deps.recentlyConsolidated(payload.recent_hours)
      : [{ tenant: payload.tenant, userId: payload.user_id }];
  const summaries: SummarizeResult['summaries'] = [];
  for (const { tenant, userId } of users) {
    const outcome = await summarizeUser(deps.apiFor(tenant), userId);
    summaries.push({ tenant, user_id: userId, ...outcome });
  }
  return { users: users.length, summaries, duration_ms: Math.round(performance.now() - started) };
}
