import type { DecayResult } from '@hindsight/jobs';
import type { MemoryRecord } from '@hindsight/memory-model';
import { decideAgain } from '../memory/decide-again.ts';
import { forgetExpired } from '../memory/forget.ts';
import { archive } from '../memory/manage.ts';
import { type MemoryStore, type MemoryUpdate, StaleWriteError } from '../memory/store-port.ts';
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
 *
 * Every change is committed against the version it was decided on: a memory superseded,
 * edited or restored while the pass ran is read again and decided again, never overwritten
 * with what the pass read before; an archived memory is deleted only if it is still the
 * version found archived.
 */
export async function runDecay(
  store: MemoryStore,
  tenants: readonly string[],
  settings: DecaySettings,
  now = Date.now(),
): Promise<DecayResult> {
  const started = performance.now();
  const result = { tenants: tenants.length, scanned: 0, reweighted: 0, archived: 0, deleted: 0 };
  for (const tenant of tenants) {
    const expired = new Map<string, number>();
    let cursor: string | undefined;
    do {
      const page = await store.list(
        { tenant, layers: ['semantic', 'episodic'], statuses: ['active', 'archived'] },
        PAGE,
        cursor,
      );
      const records = page.items.filter((record) => record.category !== PROFILE_CATEGORY);
      result.scanned += records.length;
      let fresh = records;
      const changes = await decideAgain(async () => {
        const decided = decayChanges(fresh, now, settings);
        if (decided.updates.length > 0) {
          try {
            await store.commit({ inserts: [], updates: decided.updates });
          } catch (error) {
            // Some of the page changed since it was listed: read those rows again and decide again.
            if (error instanceof StaleWriteError)
              fresh = await store.getMany(
                tenant,
                records.map((r) => r.id),
              );
            throw error;
          }
        }
        return decided;
      });
      result.reweighted += changes.reweighted;
      result.archived += changes.archived;
      for (const [id, version] of changes.expired) expired.set(id, version);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    result.deleted += await forgetExpired(store, tenant, expired, now);
  }
  return { ...result, duration_ms: Math.round(performance.now() - started) };
}

interface DecayChanges {
  updates: MemoryUpdate[];
  reweighted: number;
  archived: number;
  /** Archived past retention: id → the version found archived. */
  expired: Map<string, number>;
}

/** What one pass changes about these records at `now` (each update carries the version it read). */
function decayChanges(records: readonly MemoryRecord[], now: number, settings: DecaySettings): DecayChanges {
  const at = new Date(now).toISOString();
  const changes: DecayChanges = { updates: [], reweighted: 0, archived: 0, expired: new Map() };
  for (const record of records) {
    if (record.status === 'archived') {
      if (now - archivedAt(record) > settings.retentionDays * DAY_MS) changes.expired.set(record.id, record.version);
      continue;
    }
    if (record.status !== 'active') continue;
    const weight = Math.round(decayWeight(record, now, settings) * 10_000) / 10_000;
    if (weight < settings.archiveBelow) {
      const next = structuredClone(record);
      archive(next, at, `decay weight ${weight} below ${settings.archiveBelow}`);
      next.decay_weight = weight;
      changes.updates.push({ record: next });
      changes.archived += 1;
    } else if (Math.abs(weight - record.decay_weight) >= REWEIGHT_EPSILON) {
      changes.updates.push({ record: { ...record, decay_weight: weight } });
      changes.reweighted += 1;
    }
  }
  return changes;
}
