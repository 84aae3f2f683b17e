import type { Embedder } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import {
  type MemoryStatus,
  resolveTimeRange,
  type SearchHit,
  type SearchRequest,
  type SearchResponse,
  splitMemoryTypes,
} from '@hindsight/memory-model';
import { queryKeywordTokens } from '@hindsight/text';
import { askedKinds, kindsApartFrom, statesAnyKind } from './asked-kinds.ts';
import { fitToBudget, renderContext } from './context.ts';
import { type DialogueFocusWeights, dialogueFocus } from './dialogue-focus.ts';
import { answeredHit, type HitEvidence, type QueryEvidence, type Ranked, roundScore, scoreHit } from './hit-scoring.ts';
import { QueryEmbedding, type QueryEmbeddingSettings } from './query-embedding.ts';
import type { RankingWeights, SimilarityBackground } from './ranking.ts';
import { collapseRedundant, type RedundancySettings } from './redundancy.ts';
import { asksForAPerson, relationsNamed, relationWeight } from './relations.ts';
import { SearchDeadline, TIMED_OUT } from './search-deadline.ts';
import { isSessionTurn } from './session-turns.ts';
import { SimilarityBackgrounds } from './similarity-background.ts';
import type { CandidateRecord, CandidateSet, MemoryStore, SearchScope } from './store-port.ts';
import { ALIGNED_CANDIDATES, alignedSimilarities } from './word-alignment.ts';
import { DEFAULT_USER } from './write.ts';

export interface SearchSettings {
  ranking: RankingWeights;
  /** How a question naming a speaker or a day weighs the conversation turns. */
  dialogueFocus: DialogueFocusWeights;
  redundancy: RedundancySettings;
  deadlineMs: number;
  /** Candidates fetched from each source per requested result. */
  candidateFactor: number;
  /** `min_score` when a request does not send one: results below it are not relevant. */
  minScore: number;
  queryEmbedding: QueryEmbeddingSettings;
}

/** Candidates from outside the long-term store (a session's working memory), already scored. */
export interface ExtraCandidateSource {
  /** Without `queryVector` (the embedder is unavailable) the source matches by keywords alone. */
  search(
    tenant: string,
    request: SearchRequest,
    queryVector: Float32Array | undefined,
  ): Promise<Array<{ hit: Omit<SearchHit, 'score' | 'scores'>; similarity: number; keyword: number }>>;
}

export interface SearchDeps {
  store: MemoryStore;
  embedder: Embedder;
  settings: SearchSettings;
  log: Logger;
  session?: ExtraCandidateSource;
  /** Called off the hot path with the ids that were returned. */
  onReturned?: (tenant: string, ids: string[]) => void;
}

/**
 * The store's part of a search gets this long even past the deadline: without its records there is
 * nothing to answer, and a store that works answers far sooner; one that hangs does not hold the search.
 */
const RECORDS_GRACE_MS = 50;

const NO_CANDIDATES: CandidateSet = { dense: [], keyword: [], records: [], keywordOnlySimilarities: new Map() };

/** The profile summary is loaded by the agent; a search returns it only when asked for by category. */
const PROFILE_CATEGORY = 'profile';

/** A read path bound to its dependencies (the query-embedding circuit and background live across searches). */
export type SearchMemories = (tenant: string, request: SearchRequest) => Promise<SearchResponse>;

/**
 * The read path of DESIGN §4. No LLM calls. Dense and keyword candidates are fetched in parallel
 * under the same filters; each is scored on its evidence (similarity above the query's
 * background, normalised BM25 with turn context), fused, adjusted, floored at `min_score`,
 * collapsed for redundancy, cut to the token budget, and answered before the deadline with
 * whatever is ready. Without a query vector (embedder down, frozen or cooling down) it answers
 * keyword results at once with `dense_skipped`.
 */
export function createSearch(deps: SearchDeps): SearchMemories {
  const queryEmbedding = new QueryEmbedding(deps.embedder, deps.settings.queryEmbedding, deps.log);
  const backgrounds = new SimilarityBackgrounds(deps.embedder);
  return (tenant, request) => searchMemories(deps, { queryEmbedding, backgrounds }, tenant, request);
}

async function searchMemories(
  deps: SearchDeps,
  shared: { queryEmbedding: QueryEmbedding; backgrounds: SimilarityBackgrounds },
  tenant: string,
  request: SearchRequest,
): Promise<SearchResponse> {
  const started = performance.now();
  const now = Date.now();
  const deadline = new SearchDeadline(started + (request.deadline_ms ?? deps.settings.deadlineMs), deps.log);
  const minScore = request.min_score ?? deps.settings.minScore;

  const scope = buildScope(tenant, request, now);
  const perSource = Math.max(request.top_k * deps.settings.candidateFactor, 20);
  const embedded = shared.queryEmbedding.embed(request.query, deadline.remaining());
  const vectorOf = embedded.then((e) => ('vector' in e ? e.vector : undefined));
  // One call for the store's part: it looks for keyword candidates while the query is embedded.
  // Settled at once: a store failure while the query is being embedded is this search's error,
  // thrown below, never an unhandled rejection.
  const storeWork = settle(
    deps.store.searchCandidates({ scope, terms: queryKeywordTokens(request.query), k: perSource, vector: vectorOf }),
  );
  const outcome = await embedded;
  const queryVector = 'vector' in outcome ? outcome.vector : undefined;
  if ('skipped' in outcome && outcome.skipped === 'deadline') deadline.timedOut = true;

  const [found, session, background] = await Promise.all([
    // Once the vector is known the store has little left to do: it gets a short grace past the
    // deadline, since without records there is nothing to answer, and a store that hangs does not hold the search.
    deadline.race(storeWork, RECORDS_GRACE_MS),
    deps.session && request.session_id
      ? deadline.race(deps.session.search(tenant, request, queryVector))
      : Promise.resolve([]),
    queryVector ? deadline.race(shared.backgrounds.of(queryVector)) : undefined,
  ]);
  if (found !== TIMED_OUT && !found.ok) throw found.error;
  const candidates = found === TIMED_OUT || !found.ok ? NO_CANDIDATES : found.value;
  const sessionHits = session === TIMED_OUT ? [] : session;
  const noBackground = { mean: 0, deviation: 0 };
  const queryBackground: SimilarityBackground =
    background === TIMED_OUT || background === undefined ? noBackground : background;

  const similarity = new Map(candidates.dense.map((c) => [c.id, c.score]));
  const keywordScore = new Map(candidates.keyword.map((c) => [c.id, c.score]));
  const bestKeyword = candidates.keyword.reduce((best, c) => Math.max(best, c.score), 0);
  const records = candidates.records.filter((r) => wantsCategory(request, r.category));
  const focus = dialogueFocus(request.query, records, deps.settings.dialogueFocus);
  const askedAbout = relationsNamed(request.query);
  const asked = deps.settings.ranking.askedKindMatch > 0 ? askedKinds(request.query) : [];
  const apart = kindsApartFrom(asked);
  const { relationAbout, relationOther, relationOwner } = deps.settings.ranking;
  // "Who does she walk with?" asks for a person: a fact about a relative is no answer about someone else.
  const relationWeights = {
    about: relationAbout,
    other: relationOther,
    owner: asksForAPerson(request.query) ? 0 : relationOwner,
  };
  // A record is scored up to three times (first ranking, keyword-only rescoring, word alignment): its text is read once.
  const aboutOf = oncePerRecord((record) =>
    relationWeight(askedAbout, relationsNamed(record.content), relationWeights),
  );
  // Stated of whom the question asks (the relative it names, or else the user), or only a kind that is no answer.
  const askedKindOf = oncePerRecord((record, about: number): HitEvidence['askedKind'] => {
    if (asked.length > 0 && statesAnyKind(record.content, asked)) {
      return (askedAbout.all.size > 0 ? about > 1 : about >= 1) ? 'stated' : undefined;
    }
    return apart.length > 0 && statesAnyKind(record.content, apart) ? 'other' : undefined;
  });

  const query: QueryEvidence = {
    now,
    ranking: deps.settings.ranking,
    dense: queryVector !== undefined,
    background: queryBackground,
    bestKeyword,
  };
  // A stored memory's evidence: its similarity (from the k-NN, or looked up below), its keyword
  // score, and for a conversation turn its dialogue focus.
  const storedEvidence = (record: CandidateRecord, sim: number): HitEvidence => {
    const evidence: HitEvidence = {
      similarity: sim,
      keyword: keywordScore.get(record.id) ?? 0,
      confidence: record.confidence,
      decayWeight: record.decay_weight,
    };
    if (isSessionTurn(record)) evidence.turn = { focus: focus?.(record) ?? 1 };
    else {
      if (askedAbout.all.size > 0 || relationOwner > 0) evidence.about = aboutOf(record);
      const askedKind = askedKindOf(record, evidence.about ?? 1);
      if (askedKind) evidence.askedKind = askedKind;
    }
    return evidence;
  };
  // The best facts' similarity blended with their words' alignment with the query (word-alignment.ts).
  const rerankByWords = async (
    ranked: Ranked[],
    byId: ReadonlyMap<string, CandidateRecord>,
    backgroundSimilarities: readonly number[],
  ) => {
    // Stored facts only: working memory has no record here, and turns keep their cosine.
    const best = ranked.slice(0, ALIGNED_CANDIDATES).flatMap((hit, at) => {
      const record = byId.get(hit.id);
      return record && !isSessionTurn(record) ? [{ at, record }] : [];
    });
    const cosineOf = (id: string) => similarity.get(id) ?? candidates.keywordOnlySimilarities.get(id) ?? 0;
    const aligned = await deadline.race(
      alignedSimilarities(
        deps.embedder,
        request.query,
        best.map(({ record }) => ({ id: record.id, content: record.content, similarity: cosineOf(record.id) })),
        backgroundSimilarities,
        deps.settings.ranking.wordAlignment,
      ).catch((error: unknown) => {
        deps.log.warn({ err: error }, 'word alignment failed; the search keeps its cosines');
        return undefined;
      }),
    );
    if (aligned === TIMED_OUT || aligned === undefined) return;
    const evidence = { ...query, background: aligned.background };
    // Alignment promotes, never demotes: a fact keeps the better of its two scores, so a search
    // that had an answer above the floor still has one.
    for (const { at, record } of best) {
      const sim = aligned.similarity.get(record.id) ?? cosineOf(record.id);
      const rescored = scoreHit(toHit(record), storedEvidence(record, sim), evidence, record.superseded_by);
      if (rescored.score > (ranked[at] as Ranked).score) ranked[at] = rescored;
    }
    sortByScore(ranked);
  };
  const scoreStored = (record: CandidateRecord, sim: number) =>
    scoreHit(toHit(record), storedEvidence(record, sim), query, record.superseded_by);
  const hits: Ranked[] = records.map((record) => scoreStored(record, similarity.get(record.id) ?? 0));
  for (const { hit, similarity: sim, keyword: kw } of sessionHits) {
    hits.push(scoreHit(hit, { similarity: sim, keyword: kw, confidence: 1, decayWeight: 1 }, query, null));
  }

  // A keyword-only candidate's cosine is not known from the k-NN (it is below its k-th neighbour):
  // it counts for the few that would be returned without it (the store read it with the rows), and
  // their score counts it, which can only raise them.
  sortByScore(hits);
  if (queryVector) {
    const byId = new Map(records.map((r) => [r.id, r]));
    let rescored = false;
    for (let i = 0; i < Math.min(request.top_k, hits.length); i++) {
      const hit = hits[i] as Ranked;
      if (hit.layer === 'working' || similarity.has(hit.id) || hit.score < minScore) continue;
      const record = byId.get(hit.id) as CandidateRecord;
      hits[i] = scoreStored(record, candidates.keywordOnlySimilarities.get(hit.id) ?? 0);
      rescored = true;
    }
    if (rescored) sortByScore(hits);
    // When the query's own words are found, the words decide (keywordDominance): alignment is for paraphrases.
    const wordsFound = (hits[0]?.scores.keyword ?? 0) >= WORDS_FOUND;
    if (background !== TIMED_OUT && background !== undefined && !wordsFound) {
      await rerankByWords(hits, byId, background.similarities);
    }
  }

  const relevant = hits.filter((h) => h.score >= minScore);
  const { kept: top } = collapseRedundant(relevant, request.top_k, deps.settings.redundancy);
  const { kept, tokens, truncated } = fitToBudget(
    top.map((hit) => ({
      id: hit.id,
      content: hit.content,
      category: hit.category,
      occurredAt: hit.occurred_at,
      supersededBy: hit.supersededBy,
      hit,
    })),
    request.token_budget,
  );
  const results: SearchHit[] = kept.map((item) => answeredHit(item.hit));
  const returnedIds = results.filter((r) => r.layer !== 'working').map((r) => r.id);
  if (returnedIds.length > 0) deps.onReturned?.(tenant, returnedIds);

  return {
    results,
    context: renderContext(kept),
    context_tokens: tokens,
    truncated,
    timed_out: deadline.timedOut,
    dense_skipped: queryVector === undefined,
    took_ms: roundScore(performance.now() - started),
  };
}

/** `read` of a record, computed on its first call and answered from then on (by record id, for one search). */
function oncePerRecord<T, A extends unknown[]>(
  read: (record: CandidateRecord, ...args: A) => T,
): (record: CandidateRecord, ...args: A) => T {
  const known = new Map<string, T>();
  return (record, ...args) => {
    if (known.has(record.id)) return known.get(record.id) as T;
    const value = read(record, ...args);
    known.set(record.id, value);
    return value;
  };
}

/** The top result's keyword relevance at which the query's words count as found (no word alignment then). */
const WORDS_FOUND = 0.5;

/** Best first; among equal rounded scores the finer relevance decides before recency. */
function sortByScore(hits: Ranked[]): void {
  hits.sort((a, b) => b.score - a.score || b.relevance - a.relevance || b.occurred_at.localeCompare(a.occurred_at));
}

/** The profile summary only when the request names its category. */
function wantsCategory(request: SearchRequest, category: string): boolean {
  if (category !== PROFILE_CATEGORY) return true;
  const { categories } = splitMemoryTypes(request.memory_types);
  return [...(categories ?? []), ...(request.categories ?? [])].includes(PROFILE_CATEGORY);
}

function buildScope(tenant: string, request: SearchRequest, now: number): SearchScope {
  const { layers, categories } = splitMemoryTypes(request.memory_types);
  const window = resolveTimeRange(request.time_range, now);
  const statuses: MemoryStatus[] = request.include_superseded ? ['active', 'superseded'] : ['active'];
  const scope: SearchScope = { tenant, userId: request.user_id ?? DEFAULT_USER, statuses };
  if (request.agent_id) scope.agentId = request.agent_id;
  if (layers) scope.layers = layers.filter((l) => l !== 'working');
  const allCategories = [...(categories ?? []), ...(request.categories ?? [])];
  if (allCategories.length > 0) scope.categories = allCategories;
  if (request.tags && request.tags.length > 0) scope.tags = request.tags;
  if (window.from !== undefined) scope.occurredFrom = window.from;
  if (window.to !== undefined) scope.occurredTo = window.to;
  if (!request.include_superseded) scope.validAt = now;
  return scope;
}

function toHit(record: CandidateRecord): Omit<SearchHit, 'score' | 'scores'> {
  return {
    id: record.id,
    content: record.content,
    layer: record.layer,
    category: record.category,
    status: record.status,
    tags: record.tags,
    occurred_at: record.occurred_at,
    created_at: record.created_at,
    metadata: record.metadata,
    source: record.source,
  };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  return work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}
