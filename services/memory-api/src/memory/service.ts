import type { Embedder } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import type { MemoryInput, SearchRequest, SearchResponse, WriteResult } from '@hindsight/memory-model';
import { AccessRecorder } from './access-recorder.ts';
import type { ContradictionJudge } from './contradiction.ts';
import type { GuardPolicy } from './guard.ts';
import type { ManageDeps } from './manage.ts';
import type { OwnerLock } from './owner-lock.ts';
import { createSearch, type ExtraCandidateSource, type SearchSettings } from './search.ts';
import type { MemoryStore } from './store-port.ts';
import { type WorkingNoteWriter, type WriteContext, type WriteSettings, writeMemories } from './write.ts';

/** The memory domain wired to its adapters: what routes, MCP tools and jobs call. */
export interface MemoryService {
  readonly store: MemoryStore;
  readonly embedder: Embedder;
  readonly manage: ManageDeps;
  /** The confidence caps of the write path, which imports apply too. */
  readonly confidence: Pick<WriteSettings, 'defaultConfidence' | 'singleSourceModelConfidenceCap'>;
  write(ctx: WriteContext, inputs: readonly MemoryInput[]): Promise<WriteResult[]>;
  search(tenant: string, request: SearchRequest): Promise<SearchResponse>;
  /** Writes the access statistics still gathered; call before the store closes. */
  close(): Promise<void>;
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
  return {
    store: deps.store,
    embedder: deps.embedder,
    manage: { store: deps.store, embedder: deps.embedder, guard: deps.guard, lock: deps.lock },
    confidence: deps.write,
    write: (ctx, inputs) => writeMemories(writeDeps, ctx, inputs),
    search: createSearch(searchDeps),
    close: () => access.flush(),
  };
}
