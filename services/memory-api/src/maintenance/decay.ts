import type { DecayResult } from '@hindsight/jobs';
import type { MemoryRecord } from '@hindsight/memory-model';
import type { MemoryStore, MemoryUpdate } from '../memory/store-port.ts';
import { PROFILE_CATEGORY } from '../users/profile.ts';

export interface DecaySettings {
  /** λ per category; weight = exp(−λ·age_days). */
  lambdas: Readonly<Record<string, number>>;
  defaultLambda: number;
  /** Below this weight an active memory is archived (out of search, restorable). */
  archiveBelow: number;
  /** Archived this many days ago → deleted for good. */
  retentionDays: number;
}

/** DESIGN §5 defaults. */
export const DEFAULT_DECAY: DecaySettings = {
  lambdas: { preference: 0.02, commitment: 0.01, error: 0.05, decision: 0.1 },
  defaultLambda: 0.05,
  archiveBelow: 0.1,
  retentionDays: 90,
};

const DAY_MS = 86_400_000;
const PAGE = 500;
/** Smaller changes are not worth a write. */
const REWEIGHT_EPSILON = 0.005;

/** The decay weight of a memory at `now`; a recent access restarts the clock. */
export function decayWeight(record: MemoryRecord, now: number, settings: DecaySettings): number {
  const learned = Date.parse(record.created_at);
  const accessed = record.last_accessed_at ? Date.parse(record.last_accessed_at) : 0;
  const ageDays = Math.max(0, (now - Math.max(learned, accessed)) / DAY_MS);
  const lambda = settings.lambdas[record.category] ?? settings.defaultLambda;
  return Math.exp(-lambda * ageDays);
}

/** When a memory was archived (its latest `archived` history entry), epoch ms. */
function archivedAt(record: MemoryRecord): number {
  for (let i = record.history.length - 1; i >= 0; i--) {
    const entry = record.history[i];
    if (entry?.action === 'archived') return Date.parse(entry.at);
  }
  return Date.parse(record.updated_at);
}

/**
 * One decay pass over the long-term store of the given tenants: reweights active
 * memories, archives those that faded below the threshold, and deletes memories
 * archived longer than the retention. Profile summaries do not decay.
 */
export async function runDecay(
  store: MemoryStore,
  tenants: readonly string[],
  settings: DecaySettings,
  now = Date.now(),
): Promise<DecayResult> {
  const started = performance.now();
  const result = { tenants: tenants.length, scanned: 0, reweighted: 0, archived: 0, deleted: 0 };
  const at = new Date(now).toISOString();
  for (const tenant of tenants) {
    const expired: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list(
        { tenant, layers: ['semantic', 'episodic'], statuses: ['active', 'archived'] },
        PAGE,
        cursor,
      );
      const updates: MemoryUpdate[] = [];
      for (const record of page.items) {
        if (record.category === PROFILE_CATEGORY) continue;
        result.scanned += 1;
        if (record.status === 'archived') {
          if (now - archivedAt(record) > settings.retentionDays * DAY_MS) expired.push(record.id);
          continue;
        }
        const weight = Math.round(decayWeight(record, now, settings) * 10_000) / 10_000;
        if (weight < settings.archiveBelow) {
          const next = structuredClone(record);
          next.status = 'archived';
          next.decay_weight = weight;
          next.updated_at = at;
          next.history.push({
            at,
            action: 'archived',
            content: record.content,
            note: `decay weight ${weight} below ${settings.archiveBelow}`,
          });
          updates.push({ record: next });
          result.archived += 1;
        } else if (Math.abs(weight - record.decay_weight) >= REWEIGHT_EPSILON) {
          updates.push({ record: { ...record, decay_weight: weight } });
          result.reweighted += 1;
        }
      }
      if (updates.length > 0) await store.commit({ inserts: [], updates });
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    for (let i = 0; i < expired.length; i += PAGE) {
      result.deleted += await store.deleteMany(tenant, expired.slice(i, i + PAGE));
    }
  }
  return { ...result, duration_ms: Math.round(performance.now() - started) };
}
