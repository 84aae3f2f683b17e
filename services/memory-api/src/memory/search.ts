import type { Embedder } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import {
  type MemoryRecord,
  type MemoryStatus,
  resolveTimeRange,
  type SearchHit,
  type SearchRequest,
  type SearchResponse,
  splitMemoryTypes,
} from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import { fitToBudget, renderContext } from './context.ts';
import { finalScore, type RankingWeights, recencyWeight, reciprocalRankFusion } from './ranking.ts';
import type { Candidate, MemoryStore, SearchScope } from './store-port.ts';
import { DEFAULT_USER } from './write.ts';

export interface SearchSettings {
  ranking: RankingWeights;
  deadlineMs: number;
  /** Candidates fetched from each source per requested result. */
  candidateFactor: number;
}

/** Candidates from outside the long-term store (a session's working memory), already scored. */
export interface ExtraCandidateSource {
  search(
    tenant: string,
    request: SearchRequest,
    queryVector: Float32Array,
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

const TIMED_OUT = Symbol('timed out');

/**
 * The read path of DESIGN §4. No LLM calls. Dense and keyword candidates are
 * fetched in parallel under the same filters, fused with RRF, reranked, cut to
 * the token budget, and answered before the deadline with whatever is ready.
 */
export async function searchMemories(
  deps: SearchDeps,
  tenant: string,
  request: SearchRequest,
): Promise<SearchResponse> {
  const started = performance.now();
  const now = Date.now();
  const deadline = started + (request.deadline_ms ?? deps.settings.deadlineMs);
  const { ranking } = deps.settings;
  let timedOut = false;
  const beforeDeadline = async <T>(work: Promise<T>): Promise<T | typeof TIMED_OUT> => {
    const remaining = deadline - performance.now();
    let timer: NodeJS.Timeout | undefined;
    // Past the deadline a step that has already finished still counts: race it against an expiry that is due now.
    const expiry =
      remaining <= 0
        ? Promise.resolve(TIMED_OUT)
        : new Promise<typeof TIMED_OUT>((resolve) => {
            timer = setTimeout(() => resolve(TIMED_OUT), remaining);
          });
    try {
      const outcome = await Promise.race([work, expiry]);
      if (outcome === TIMED_OUT) {
        timedOut = true;
        work.catch((error: unknown) => deps.log.warn({ err: error }, 'search step failed after the deadline'));
      }
      return outcome;
    } finally {
      clearTimeout(timer);
    }
  };

  const scope = buildScope(tenant, request, now);
  const candidates = Math.max(request.top_k * deps.settings.candidateFactor, 20);
  const terms = keywordTokens(request.query);

  const keywordWork = deps.store.keywordSearch(scope, terms, candidates);
  const embedded = await beforeDeadline(deps.embedder.embed([request.query]));
  const queryVector = embedded === TIMED_OUT ? undefined : embedded[0];

  const [dense, keyword, session] = await Promise.all([
    queryVector ? beforeDeadline(deps.store.vectorSearch(scope, queryVector, candidates)) : Promise.resolve(TIMED_OUT),
    beforeDeadline(keywordWork),
    queryVector && deps.session && request.session_id
      ? beforeDeadline(deps.session.search(tenant, request, queryVector))
      : Promise.resolve([]),
  ]);
  const denseHits: Candidate[] = dense === TIMED_OUT ? [] : dense;
  const keywordHits: Candidate[] = keyword === TIMED_OUT ? [] : keyword;
  const sessionHits = session === TIMED_OUT ? [] : session;

  const sources = ranking.sourceWeights ?? { dense: 1, keyword: 1 };
  const fused = reciprocalRankFusion(
    [denseHits.map((c) => c.id), keywordHits.map((c) => c.id), sessionHits.map((s) => s.hit.id)],
    ranking.rrfK,
    // The session's working memory counts as much as the stronger long-term source.
    [sources.dense, sources.keyword, Math.max(sources.dense, sources.keyword)],
  );
  const similarity = new Map(denseHits.map((c) => [c.id, c.score]));
  const bestKeyword = keywordHits[0]?.score ?? 0;
  const keywordScore = new Map(keywordHits.map((c) => [c.id, bestKeyword > 0 ? c.score / bestKeyword : 0]));

  const storedIds = [...new Set([...denseHits, ...keywordHits].map((c) => c.id))];
  const records = storedIds.length > 0 ? await deps.store.getMany(tenant, storedIds) : [];

  const hits: Array<SearchHit & { supersededBy: string | null }> = records.map((record) => {
    const scores = {
      similarity: round(similarity.get(record.id) ?? 0),
      keyword: round(keywordScore.get(record.id) ?? 0),
      recency: round(recencyWeight(Date.parse(record.occurred_at), now, ranking.recencyHalfLifeDays)),
      confidence: record.confidence,
    };
    return {
      ...toHit(record),
      scores,
      score: round(
        finalScore(
          {
            relevance: fused.get(record.id) ?? 0,
            confidence: record.confidence,
            recency: scores.recency,
            category: record.category,
            decayWeight: record.decay_weight,
          },
          ranking,
        ),
      ),
      supersededBy: record.superseded_by,
    };
  });
  for (const { hit, similarity: sim, keyword: kw } of sessionHits) {
    const scores = {
      similarity: round(sim),
      keyword: round(kw),
      recency: round(recencyWeight(Date.parse(hit.occurred_at), now, ranking.recencyHalfLifeDays)),
      confidence: 1,
    };
    const score = finalScore(
      {
        relevance: fused.get(hit.id) ?? 0,
        confidence: 1,
        recency: scores.recency,
        category: hit.category,
        decayWeight: 1,
      },
      ranking,
    );
    hits.push({ ...hit, scores, score: round(score), supersededBy: null });
  }

  // Scores are rounded for the answer; among equal rounded scores the finer fused relevance decides
  // before recency, or deep ranks would be reshuffled by date.
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      (fused.get(b.id) ?? 0) - (fused.get(a.id) ?? 0) ||
      b.occurred_at.localeCompare(a.occurred_at),
  );
  const top = hits.slice(0, request.top_k);
  // The rank does not depend on it, so the cosine of keyword-only candidates is looked up for the
  // returned few only (each lookup reads a vector back out of the index).
  const missingSimilarity = top.filter((h) => h.layer !== 'working' && !similarity.has(h.id));
  if (queryVector && missingSimilarity.length > 0) {
    const looked = await deps.store.similarities(
      tenant,
      missingSimilarity.map((h) => h.id),
      queryVector,
    );
    for (const hit of missingSimilarity) hit.scores.similarity = round(looked.get(hit.id) ?? 0);
  }
  const { kept, truncated } = fitToBudget(
    top.map((h) => ({ ...h, occurredAt: h.occurred_at })),
    request.token_budget,
  );
  const results: SearchHit[] = kept.map(({ supersededBy: _s, occurredAt: _o, ...hit }) => hit);
  const returnedIds = results.filter((r) => r.layer !== 'working').map((r) => r.id);
  if (returnedIds.length > 0) deps.onReturned?.(tenant, returnedIds);

  return {
    results,
    context: renderContext(kept),
    truncated,
    timed_out: timedOut,
    took_ms: round(performance.now() - started),
  };
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

function toHit(record: MemoryRecord): Omit<SearchHit, 'score' | 'scores'> {
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

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
