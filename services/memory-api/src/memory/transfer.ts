import { createHash } from 'node:crypto';
import type { Embedder } from '@hindsight/embedding';
import { BadRequestError, ValidationError } from '@hindsight/errors';
import {
  BoundedMetadata,
  CONTENT_LIMITS,
  contentHash,
  Identifier,
  type ImportSummary,
  MemoryRecord,
  searchableText,
  Tags,
} from '@hindsight/memory-model';
import { z } from 'zod';
import { PROFILE_CATEGORY, profileHash } from '../users/profile.ts';
import { type GuardPolicy, guardContent } from './guard.ts';
import { cappedConfidence } from './prepare.ts';
import { DuplicateContentError, IdTakenError, type MemoryFilter, type MemoryStore } from './store-port.ts';
import type { WriteSettings } from './write.ts';

/** Records read per store page while exporting, and lines validated and committed per import chunk. */
export const TRANSFER_CHUNK = 500;

/**
 * Every long-term record matching `filter`, in store order, page by page so an export of any size
 * holds one page in memory. Records inserted while the export runs may or may not appear; each
 * record that existed when it started appears exactly once (the store's cursor contract).
 */
export async function* exportMemories(
  store: MemoryStore,
  filter: MemoryFilter,
  pageSize = TRANSFER_CHUNK,
): AsyncGenerator<MemoryRecord> {
  let cursor: string | undefined;
  do {
    const page = await store.list(filter, pageSize, cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

export interface ImportDeps {
  store: MemoryStore;
  embedder: Embedder;
  guard: GuardPolicy;
  confidence: Pick<WriteSettings, 'defaultConfidence' | 'singleSourceModelConfidenceCap'>;
  /** The importer holds the admin key (a backup restored by an operator): provenance and confidence are kept. */
  trusted: boolean;
  /** Called after each committed chunk with how many records it inserted. */
  onCommitted?: (inserted: number) => void;
}

export interface NumberedLine {
  /** 1-based line number in the request body. */
  line: number;
  text: string;
}

/**
 * An export line as import takes it: a memory record within the limits of a write (ids, tags,
 * metadata size and depth, query length; content by layer is checked after parsing).
 */
const ImportedRecord = MemoryRecord.extend({
  id: Identifier,
  user_id: Identifier,
  agent_id: Identifier.nullable(),
  session_id: Identifier.nullable(),
  query: z.string().max(500).nullable(),
  tags: Tags,
  metadata: BoundedMetadata,
});

/**
 * Imports exported records into `tenant` (always the caller's, whatever the lines say). Each line
 * is validated like a write: the limits, the poisoning guard (what it would refuse or hold back is
 * imported as `quarantined`; secrets are redacted), the content hash computed again from the
 * content (never the line's), and — unless the importer holds the admin key — consolidation
 * provenance recorded as `import` and confidence capped as a client's. Each record keeps its id, layer, category,
 * metadata, history, status and timestamps; its content is re-embedded with the current embedder. Lines are handled in chunks: a chunk is validated whole
 * before any of it is written, so a bad line fails with its number and nothing of its chunk is
 * stored. Ids already present are skipped, which makes a re-run resume an interrupted import.
 *
 * An id another tenant holds (the SQL stores keep ids unique across tenants) is imported under an
 * id derived from the tenant and that id, exactly as an unknown id would import: the answer never
 * tells whether an id exists elsewhere, and a re-run finds the record under its derived id.
 */
export async function importMemories(
  deps: ImportDeps,
  tenant: string,
  lines: AsyncIterable<NumberedLine>,
  chunkSize = TRANSFER_CHUNK,
): Promise<ImportSummary> {
  const summary: ImportSummary = { lines: 0, imported: 0, skipped: 0, duplicates: 0, quarantined: 0 };
  const renamed = new Map<string, string>();
  let chunk: Array<{ line: number; record: MemoryRecord }> = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const pending = chunk;
    chunk = [];
    await importChunk(deps, tenant, pending, summary, renamed);
  };
  for await (const { line, text } of lines) {
    if (text.trim() === '') continue;
    summary.lines += 1;
    chunk.push({ line, record: parseRecordLine(deps, line, text, tenant, summary) });
    if (chunk.length >= chunkSize) await flush();
  }
  await flush();
  return summary;
}

function parseRecordLine(
  deps: ImportDeps,
  line: number,
  text: string,
  tenant: string,
  progress: ImportSummary,
): MemoryRecord {
  const soFar = { line, imported: progress.imported, skipped: progress.skipped };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BadRequestError(
      `line ${line}: not valid JSON (nothing of its chunk was written; re-run to resume)`,
      soFar,
    );
  }
  const parsed = ImportedRecord.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new ValidationError(
      `line ${line}: ${where}${issue?.message ?? 'not a memory record'} (nothing of its chunk was written; re-run to resume)`,
      soFar,
    );
  }
  const record = parsed.data;
  if (record.layer === 'working') {
    throw new ValidationError(
      `line ${line}: working memory is not part of the long-term store and cannot be imported`,
      soFar,
    );
  }
  if (record.content.length > CONTENT_LIMITS[record.layer]) {
    throw new ValidationError(
      `line ${line}: ${record.layer} content must be at most ${CONTENT_LIMITS[record.layer]} characters`,
      soFar,
    );
  }
  return { ...guarded(deps, record), tenant };
}

/** A parsed line as the write path would store it: guarded, hashed from its content, provenance as trusted. */
function guarded(deps: ImportDeps, record: MemoryRecord): MemoryRecord {
  const verdict = guardContent(record.content, record.layer, deps.guard);
  const next: MemoryRecord = { ...record, content: verdict.content };
  if (verdict.kind !== 'allow' && record.status !== 'quarantined') {
    next.status = 'quarantined';
    next.history = [
      ...record.history,
      { at: new Date().toISOString(), action: 'quarantined', content: verdict.content, note: verdict.reason },
    ];
  }
  next.content_hash = record.category === PROFILE_CATEGORY ? profileHash(next.content) : contentHash(next.content);
  // Consolidation provenance is the worker's to write (as on /store): from a client it is an import.
  if (!deps.trusted && record.source.kind === 'consolidation') next.source = { ...record.source, kind: 'import' };
  next.confidence = cappedConfidence(record.confidence, record.source.extractor, deps.trusted, deps.confidence);
  return next;
}

async function importChunk(
  deps: ImportDeps,
  tenant: string,
  chunk: Array<{ line: number; record: MemoryRecord }>,
  summary: ImportSummary,
  renamed: Map<string, string>,
): Promise<void> {
  let duplicateRetried = false;
  for (;;) {
    const fresh = await newRecords(
      deps.store,
      tenant,
      chunk.map(({ record }) => ({ record: withRenamedIds(record, renamed) })),
    );
    const vectors = fresh.records.length > 0 ? await deps.embedder.embed(fresh.records.map(searchableText)) : [];
    try {
      await deps.store.commit({
        inserts: fresh.records.map((record, i) => ({
          record: { ...record, embedding_model: deps.embedder.model },
          vector: vectors[i] as Float32Array,
        })),
        updates: [],
      });
    } catch (error) {
      if (error instanceof IdTakenError && (await idHeldElsewhere(deps.store, tenant, error.memoryId, renamed))) {
        renamed.set(error.memoryId, tenantScopedId(tenant, error.memoryId));
        continue;
      }
      // A concurrent write stored the same content (or id) between our check and the commit: decide again.
      if ((error instanceof DuplicateContentError || error instanceof IdTakenError) && !duplicateRetried) {
        duplicateRetried = true;
        continue;
      }
      throw error;
    }
    summary.imported += fresh.records.length;
    summary.quarantined += fresh.records.filter((record) => record.status === 'quarantined').length;
    summary.skipped += fresh.skipped;
    summary.duplicates += fresh.duplicates;
    deps.onCommitted?.(fresh.records.length);
    return;
  }
}

/** True when `id` is held, but not by `tenant`, and was not renamed already (a derived id taken is a conflict). */
async function idHeldElsewhere(
  store: MemoryStore,
  tenant: string,
  id: string,
  renamed: ReadonlyMap<string, string>,
): Promise<boolean> {
  if (renamed.has(id) || [...renamed.values()].includes(id)) return false;
  return (await store.get(tenant, id)) === undefined;
}

/** The id an imported record takes in `tenant` when another tenant holds its own: stable, so a re-run skips it. */
function tenantScopedId(tenant: string, id: string): string {
  const hex = createHash('sha256').update(`${tenant}\u001f${id}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function withRenamedIds(record: MemoryRecord, renamed: ReadonlyMap<string, string>): MemoryRecord {
  if (renamed.size === 0) return record;
  const id = renamed.get(record.id) ?? record.id;
  const supersededBy =
    record.superseded_by === null ? null : (renamed.get(record.superseded_by) ?? record.superseded_by);
  return id === record.id && supersededBy === record.superseded_by
    ? record
    : { ...record, id, superseded_by: supersededBy };
}

/** The chunk's records minus ids already stored and active content already held under another id. */
async function newRecords(
  store: MemoryStore,
  tenant: string,
  chunk: ReadonlyArray<{ record: MemoryRecord }>,
): Promise<{ records: MemoryRecord[]; skipped: number; duplicates: number }> {
  // A record imported earlier under its tenant-scoped id (its own was another tenant's) is present too.
  const ids = chunk.map((c) => c.record.id);
  const present = new Set(
    (await store.getMany(tenant, [...ids, ...ids.map((id) => tenantScopedId(tenant, id))])).map((r) => r.id),
  );
  const isPresent = (id: string) => present.has(id) || present.has(tenantScopedId(tenant, id));
  const seenIds = new Set<string>();
  const seenActive = new Set<string>();
  const records: MemoryRecord[] = [];
  let skipped = 0;
  let duplicates = 0;
  for (const { record } of chunk) {
    if (isPresent(record.id) || seenIds.has(record.id)) {
      skipped += 1;
      continue;
    }
    seenIds.add(record.id);
    if (record.status === 'active') {
      const key = `${record.user_id}\u001f${record.layer}\u001f${record.content_hash}`;
      const held =
        seenActive.has(key) ||
        (await store.findActiveByHash(tenant, record.user_id, record.layer, record.content_hash));
      if (held) {
        duplicates += 1;
        continue;
      }
      seenActive.add(key);
    }
    records.push(record);
  }
  return { records, skipped, duplicates };
}
