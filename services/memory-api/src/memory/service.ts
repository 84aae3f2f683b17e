import type { Embedder } from '@hindsight/embedding';
import type { DecayResult } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import type {
  ForgetRequest,
  ForgetResponse,
  HistoryView,
  ImportSummary,
  ListQuery,
  MemoryInput,
  MemoryPatch,
  MemoryRecord,
  SearchRequest,
  SearchResponse,
  WriteResult,
} from '@hindsight/memory-model';
import { type DecaySettings, runDecay } from '../maintenance/decay.ts';
import { AccessRecorder } from './access-recorder.ts';
import type { ContradictionJudge } from './contradiction.ts';
import { deleteMemory, forgetMemories } from './forget.ts';
import type { GuardPolicy } from './guard.ts';
import {
  getMemory,
  type HistoryPage,
  listFilter,
  listMemories,
  type ManageDeps,
  memoryHistory,
  patchMemory,
  restoreMemory,
} from './manage.ts';
import type { OwnerLock } from './owner-lock.ts';
import { createSearch, type ExtraCandidateSource, type SearchSettings } from './search.ts';
import type { LayerCounts, MemoryStore, Page } from './store-port.ts';
import { exportMemories, importMemories, type NumberedLine } from './transfer.ts';
import { type WorkingNoteWriter, type WriteContext, type WriteSettings, writeMemories } from './write.ts';

/** The memory domain wired to its adapters: what routes, MCP tools and jobs call. Routes reach memory only through it. */
export interface MemoryService {
  write(ctx: WriteContext, inputs: readonly MemoryInput[]): Promise<WriteResult[]>;
  search(tenant: string, request: SearchRequest): Promise<SearchResponse>;
  get(tenant: string, id: string): Promise<MemoryRecord>;
  list(tenant: string, query: ListQuery): Promise<Page<MemoryRecord>>;
  patch(tenant: string, id: string, patch: MemoryPatch): Promise<MemoryRecord>;
  restore(tenant: string, id: string): Promise<MemoryRecord>;
  history(tenant: string, id: string, page: HistoryPage): Promise<HistoryView>;
  /** One memory for good; what it superseded takes its place (forget.ts). */
  delete(tenant: string, id: string): Promise<void>;
  /** Every long-term memory matching the request's filters (or a count, on a dry run). */
  forget(tenant: string, request: ForgetRequest): Promise<ForgetResponse>;
  /** Every long-term record matching the query, page by page (`GET /v1/export`). */
  export(tenant: string, query: ExportQuery): AsyncIterable<MemoryRecord>;
  import(tenant: string, lines: AsyncIterable<NumberedLine>, options: ImportOptions): Promise<ImportSummary>;
  /** Memories per layer and status, of one tenant or all (`/debug/memory`). */
  counts(tenant?: string): Promise<LayerCounts[]>;
  /** One decay pass over the given tenants (the worker's scheduled job asks for it). */
  decay(tenants: readonly string[], now?: number): Promise<DecayResult>;
  /** Writes the access statistics still gathered; call before the store closes. */
  close(): Promise<void>;
}

export type ExportQuery = Omit<ListQuery, 'limit' | 'cursor'>;

export interface ImportOptions {
  /** The importer holds the admin key (a backup restored by an operator): provenance and confidence are kept. */
  trusted: boolean;
  /** Called after each committed chunk with how many records it inserted. */
  onCommitted?: (inserted: number) => void;
}

export interface MemoryServiceDeps {
  store: MemoryStore;
  embedder: Embedder;
  judge: ContradictionJudge;
  write: Omit<WriteSettings, 'guard'>;
  search: SearchSettings;
  guard: GuardPolicy;
  /** Serialises decide-and-commit per (tenant, user) across every replica. */
  lock: OwnerLock;
  log: Logger;
  session?: ExtraCandidateSource;
  /** Receives `memory_type: "working"` writes. */
  working?: WorkingNoteWriter;
  decay: DecaySettings;
}

export function createMemoryService(deps: MemoryServiceDeps): MemoryService {
  const writeDeps = {
    store: deps.store,
    embedder: deps.embedder,
    judge: deps.judge,
    settings: { ...deps.write, guard: deps.guard },
    lock: deps.lock,
    log: deps.log,
    ...(deps.working ? { working: deps.working } : {}),
  };
  // Access statistics are recorded after the answer is sent, never on the hot path, batched per window.
  const access = new AccessRecorder(deps.store, deps.log);
  const onReturned = (tenant: string, ids: string[]) => access.record(tenant, ids);
  const searchDeps = {
    store: deps.store,
    embedder: deps.embedder,
    settings: deps.search,
    log: deps.log,
    onReturned,
    ...(deps.session ? { session: deps.session } : {}),
  };
  const manage: ManageDeps = { store: deps.store, embedder: deps.embedder, guard: deps.guard, lock: deps.lock };
  return {
    write: (ctx, inputs) => writeMemories(writeDeps, ctx, inputs),
    search: createSearch(searchDeps),
    get: (tenant, id) => getMemory(manage, tenant, id),
    list: (tenant, query) => listMemories(manage, tenant, query),
    patch: (tenant, id, patch) => patchMemory(manage, tenant, id, patch),
    restore: (tenant, id) => restoreMemory(manage, tenant, id),
    history: (tenant, id, page) => memoryHistory(manage, tenant, id, page),
    delete: (tenant, id) => deleteMemory(manage, tenant, id),
    forget: (tenant, request) => forgetMemories(manage, tenant, request),
    export: (tenant, query) => exportMemories(deps.store, listFilter(tenant, { ...query, limit: 1 })),
    import: (tenant, lines, options) =>
      importMemories(
        {
          store: deps.store,
          embedder: deps.embedder,
          guard: deps.guard,
          confidence: deps.write,
          trusted: options.trusted,
          ...(options.onCommitted ? { onCommitted: options.onCommitted } : {}),
        },
        tenant,
        lines,
      ),
    counts: (tenant) => deps.store.countByLayer(tenant),
    decay: (tenants, now) => runDecay(deps.store, tenants, deps.decay, now),
    close: () => access.flush(),
  };
}
