import { BadRequestError } from '@hindsight/errors';
import { ErasureReceipt } from '@hindsight/memory-model';
import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import type { Page } from '../../../memory/store-port.ts';

/** Qdrant keeps payload-only points in a collection with a vector of one dimension. */
const UNUSED_VECTOR = 'none';

const INDEXES: ReadonlyArray<[string, Schemas['PayloadFieldSchema']]> = [
  ['tenant', { type: 'keyword', is_tenant: true }],
  ['user_id', { type: 'keyword' }],
  ['requested_ms', { type: 'integer', lookup: false, range: true }],
];

interface ErasurePayload {
  tenant: string;
  user_id: string;
  requested_ms: number;
  receipt: ErasureReceipt;
}

/** Where a newest-first page stopped: its last time, and the erasures of that same millisecond already returned. */
interface ErasureCursor {
  ms: number;
  seen: string[];
}

/**
 * User erasure tombstones in Qdrant: one point per erasure (id = erasure id) in the collection
 * `<prefix>-erasures`, outside the `<prefix>_` names the memory collections use. Listed newest
 * first by `requested_ms`.
 */
export class QdrantErasures {
  constructor(
    private readonly client: QdrantClient,
    private readonly name: string,
    private readonly call: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  async open(): Promise<void> {
    const { exists } = await this.call(() => this.client.collectionExists(this.name));
    if (!exists) {
      try {
        await this.call(() =>
          this.client.api().createCollection({
            collection_name: this.name,
            vectors: { [UNUSED_VECTOR]: { size: 1, distance: 'Dot' } },
            metadata: { hindsight_store: 'erasures' },
          }),
        );
      } catch (error) {
        // Another replica created it at the same moment.
        const { exists: now } = await this.call(() => this.client.collectionExists(this.name));
        if (!now) throw error;
      }
    }
    for (const [field_name, field_schema] of INDEXES) {
      await this.call(() => this.client.createPayloadIndex(this.name, { field_name, field_schema, wait: true }));
    }
  }

  async save(tenant: string, receipt: ErasureReceipt): Promise<void> {
    const payload: ErasurePayload = {
      tenant,
      user_id: receipt.user_id,
      requested_ms: Date.parse(receipt.requested_at),
      receipt,
    };
    await this.call(() =>
      this.client.upsert(this.name, {
        wait: true,
        ordering: 'strong',
        points: [{ id: receipt.erasure_id, vector: { [UNUSED_VECTOR]: [0] }, payload: { ...payload } }],
      }),
    );
  }

  async list(
    tenant: string,
    filter: { userId?: string },
    limit: number,
    cursor?: string,
  ): Promise<Page<ErasureReceipt>> {
    const from = cursor === undefined ? undefined : decodeCursor(cursor);
    const must: Schemas['Condition'][] = [{ key: 'tenant', match: { value: tenant } }];
    if (filter.userId !== undefined) must.push({ key: 'user_id', match: { value: filter.userId } });
    const seen = new Set(from?.seen ?? []);
    const { points } = await this.call(() =>
      this.client.scroll(this.name, {
        filter: { must },
        limit: limit + 1 + seen.size,
        with_payload: true,
        with_vector: false,
        order_by: { key: 'requested_ms', direction: 'desc', ...(from ? { start_from: from.ms } : {}) },
      }),
    );
    const fresh = points.filter((p) => !seen.has(String(p.id)));
    const page = fresh.slice(0, limit).map((p) => p.payload as unknown as ErasurePayload);
    const last = page.at(-1);
    if (fresh.length <= limit || last === undefined) {
      return { items: page.map((p) => ErasureReceipt.parse(p.receipt)), nextCursor: null };
    }
    const sameMs = page.filter((p) => p.requested_ms === last.requested_ms).map((p) => p.receipt.erasure_id);
    const carried = from && from.ms === last.requested_ms ? from.seen : [];
    return {
      items: page.map((p) => ErasureReceipt.parse(p.receipt)),
      nextCursor: encodeCursor({ ms: last.requested_ms, seen: [...carried, ...sameMs] }),
    };
  }
}

function encodeCursor(cursor: ErasureCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string): ErasureCursor {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString()) as Partial<ErasureCursor>;
    if (typeof parsed.ms === 'number' && Array.isArray(parsed.seen))
      return { ms: parsed.ms, seen: parsed.seen.map(String) };
  } catch {
    // Not JSON: answered below like any other foreign cursor.
  }
  throw new BadRequestError('cursor is not one this API returned');
}
