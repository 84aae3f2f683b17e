import type { Embedder } from '@hindsight/embedding';
import { RejectedContentError } from '@hindsight/errors';
import {
  contentHash,
  type MemoryRecord,
  type PutUserSummaryBody,
  searchableText,
  type UserSummary,
} from '@hindsight/memory-model';
import { guardContent } from '../memory/guard.ts';
import { type ManageDeps, patchHeld } from '../memory/manage.ts';
import { newMemoryRecord } from '../memory/new-record.ts';
import type { MemoryStore } from '../memory/store-port.ts';

export const PROFILE_CATEGORY = 'profile';
const PROFILE_QUERY = 'What should I know about this user first?';

/**
 * A profile may restate a single fact word for word; its own hash namespace keeps the
 * exact-duplicate rule (one active memory per content) from pitting the two against each other.
 */
export const profileHash = (content: string) => contentHash(`${PROFILE_CATEGORY}\u001f${content}`);

/**
 * The per-user profile summary (DESIGN §5 summarize): one active semantic memory of
 * category `profile`, rewritten in place when refreshed (earlier text kept in its
 * history). It bypasses merge/supersede on purpose: a profile restates many facts
 * and must never supersede the memories it summarises.
 */
export async function findProfile(
  store: MemoryStore,
  tenant: string,
  userId: string,
): Promise<MemoryRecord | undefined> {
  const page = await store.list(
    { tenant, userId, layers: ['semantic'], categories: [PROFILE_CATEGORY], statuses: ['active'] },
    1,
  );
  return page.items[0];
}

export async function userSummary(store: MemoryStore, tenant: string, userId: string): Promise<UserSummary> {
  const profile = await findProfile(store, tenant, userId);
  return {
    user_id: userId,
    summary: profile?.content ?? null,
    updated_at: profile?.updated_at ?? null,
    memory_id: profile?.id ?? null,
  };
}

/**
 * Creates or rewrites the user's profile under the owner's lock: two summarize jobs finishing at
 * once leave one active profile, the earlier text in its history. The text goes through the
 * poisoning guard like every write (an agent loads the profile into its system prompt first, so
 * what the guard would hold back is refused); only the worker (`trusted`, the admin key) writes it
 * as consolidation, a client's profile is recorded as its own (`api`).
 */
export async function saveUserSummary(
  deps: ManageDeps & { embedder: Embedder },
  tenant: string,
  userId: string,
  body: PutUserSummaryBody,
  { trusted, now = Date.now() }: { trusted: boolean; now?: number },
): Promise<UserSummary> {
  const metadata = { source_memory_ids: body.source_memory_ids ?? [] };
  return deps.lock.hold(tenant, [userId], async () => {
    const existing = await findProfile(deps.store, tenant, userId);
    if (existing) {
      const patch = existing.content === body.content ? { metadata } : { content: body.content, metadata };
      const next = await patchHeld(deps, tenant, existing.id, patch, { now, hashContent: profileHash });
      return { user_id: userId, summary: next.content, updated_at: next.updated_at, memory_id: next.id };
    }
    const verdict = guardContent(body.content, 'semantic', deps.guard);
    if (verdict.kind !== 'allow') throw new RejectedContentError(`content refused: ${verdict.reason}`);
    const at = new Date(now).toISOString();
    const record = newMemoryRecord(
      {
        tenant,
        user_id: userId,
        layer: 'semantic',
        category: PROFILE_CATEGORY,
        content: verdict.content,
        query: PROFILE_QUERY,
        tags: ['profile'],
        metadata,
        confidence: 1,
        importance: 1,
        source: trusted ? { kind: 'consolidation', extractor: 'summarize' } : { kind: 'api' },
        content_hash: profileHash(verdict.content),
        embedding_model: deps.embedder.model,
      },
      at,
    );
    const [vector] = await deps.embedder.embed([searchableText(record)]);
    await deps.store.commit({ inserts: [{ record, vector: vector as Float32Array }], updates: [] });
    return { user_id: userId, summary: record.content, updated_at: at, memory_id: record.id };
  });
}
