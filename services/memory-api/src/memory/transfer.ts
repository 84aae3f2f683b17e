import type { Embedder } from '@hindsight/embedding';
import { BadRequestError, ValidationError } from '@hindsight/errors';
import { CONTENT_LIMITS, MemoryRecord, searchableText } from '@hindsight/memory-model';
import { DuplicateContentError, type MemoryFilter, type MemoryStore } from './store-port.ts';

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

export interface ImportSummary {
  /** Non-blank lines read. */
  lines: number;
  imported: number;
  /** Ids already in the store: what an interrupted import already wrote, or a second run. */
  skipped: number;
  /** Active records whose content is already active for the same user and layer under another id. */
  duplicates: number;
}

export interface ImportDeps {
  store: MemoryStore;
  embedder: Embedder;
  /** Called after each committed chunk with how many records it inserted. */
  onCommitted?: (inserted: number) => void;
}

export interface NumberedLine {
  /** 1-based line number in the request body. */
  line: number;
  text: string;
}

/**
 * Imports exported records into `tenant` (always the caller's, whatever the lines say). Each
 * record keeps its id, layer, category, metadata, history, status and timestamps; its content is
 * re-embedded with the current embedder. Lines are handled in chunks: a chunk is validated whole
 * before any of it is written, so a bad line fails with its number and nothing of its chunk is
 * stored. Ids already present are skipped, which makes a re-run resume an interrupted import.
 */
export async function importMemories(
  deps: ImportDeps,
  tenant: string,
  lines: AsyncIterable<NumberedLine>,
  chunkSize = TRANSFER_CHUNK,
): Promise<ImportSummary> {
  const summary: ImportSummary = { lines: 0, imported: 0, skipped: 0, duplicates: 0 };
  let chunk: Array<{ line: number; record: MemoryRecord }> = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const pending = chunk;
    chunk = [];
    await importChunk(deps, tenant, pending, summary);
  };
  for await (const { line, text } of lines) {
    if (text.trim() === '') continue;
    summary.lines += 1;
    chunk.push({ line, record: parseRecordLine(line, text, tenant, summary) });
    if (chunk.length >= chunkSize) await flush();
  }
  await flush();
  return summary;
}

function parseRecordLine(line: number, text: string, tenant: string, progress: ImportSummary): MemoryRecord {
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
  const parsed = MemoryRecord.safeParse(json);
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
  // The exported hash is kept: profiles hash in their own namespace, which contentHash alone would undo.
  return { ...record, tenant };
}

async function importChunk(
  deps: ImportDeps,
  tenant: string,
  chunk: Array<{ line: number; record: MemoryRecord }>,
  summary: ImportSummary,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const fresh = await newRecords(deps.store, tenant, chunk);
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
      // A concurrent write stored the same content between our check and the commit: decide again.
      if (error instanceof DuplicateContentError && attempt === 0) continue;
      throw error;
    }
    summary.imported += fresh.records.length;
    summary.skipped += fresh.skipped;
    summary.duplicates += fresh.duplicates;
    deps.onCommitted?.(fresh.records.length);
    return;
  }
}

/** The chunk's records minus ids already stored and active content already held under another id. */
async function newRecords(
  store: MemoryStore,
  tenant: string,
  chunk: ReadonlyArray<{ record: MemoryRecord }>,
): Promise<{ records: MemoryRecord[]; skipped: number; duplicates: number }> {
  const present = new Set(
    (
      await store.getMany(
        tenant,
        chunk.map((c) => c.record.id),
      )
    ).map((r) => r.id),
  );
  const seenIds = new Set<string>();
  const seenActive = new Set<string>();
  const records: MemoryRecord[] = [];
  let skipped = 0;
  let duplicates = 0;
  for (const { record } of chunk) {
    if (present.has(record.id) || seenIds.has(record.id)) {
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
