import { dot, type Embedder } from '@hindsight/embedding';
import { resolveTimeRange, type SearchRequest, splitMemoryTypes } from '@hindsight/memory-model';
import { keywordTokens, queryKeywordTokens } from '@hindsight/text';
import type { ExtraCandidateSource } from '../memory/search.ts';
import { DEFAULT_USER } from '../memory/write.ts';
import type { WorkingMemoryStore } from './port.ts';

export interface WorkingSearchSettings {
  /** Newest turns of the session that are searched. */
  maxTurns: number;
  /** A turn is a candidate when it shares a keyword with the query or is at least this similar. */
  minSimilarity: number;
}

/**
 * The current session's working memory as a candidate source of the read path:
 * searchable the moment a turn is written (no indexing step). Turns are embedded
 * at query time, so only the newest `maxTurns` are considered.
 */
export class WorkingMemorySearch implements ExtraCandidateSource {
  constructor(
    private readonly working: WorkingMemoryStore,
    private readonly embedder: Embedder,
    private readonly settings: WorkingSearchSettings,
  ) {}

  async search(tenant: string, request: SearchRequest, queryVector: Float32Array | undefined) {
    const sessionId = request.session_id;
    if (!sessionId || !wantsWorking(request)) return [];
    const snapshot = await this.working.read(tenant, sessionId, { last: this.settings.maxTurns });
    if (snapshot.userId === null || snapshot.userId !== (request.user_id ?? snapshot.userId ?? DEFAULT_USER)) return [];
    const window = resolveTimeRange(request.time_range, Date.now());
    const turns = snapshot.turns.filter((t) => {
      const at = Date.parse(t.timestamp);
      return (window.from === undefined || at >= window.from) && (window.to === undefined || at <= window.to);
    });
    if (turns.length === 0) return [];
    // Without a query vector (the embedder is unavailable) turns are matched by their words alone.
    const vectors = queryVector ? await this.embedder.embed(turns.map((t) => t.content)) : [];
    const queryTerms = new Set(queryKeywordTokens(request.query));
    const scored = turns.map((turn, i) => {
      const terms = new Set(keywordTokens(turn.content));
      let shared = 0;
      for (const term of queryTerms) if (terms.has(term)) shared++;
      return {
        turn,
        // Embedders return unit vectors: the dot product is the cosine.
        similarity: queryVector ? dot(queryVector, vectors[i] as Float32Array) : 0,
        keyword: queryTerms.size > 0 ? shared / queryTerms.size : 0,
      };
    });
    return scored
      .filter((s) => s.keyword > 0 || s.similarity >= this.settings.minSimilarity)
      .sort((a, b) => b.similarity + b.keyword - (a.similarity + a.keyword))
      .slice(0, request.top_k)
      .map(({ turn, similarity, keyword }) => ({
        hit: {
          id: `${sessionId}#${turn.id}`,
          content: turn.content,
          layer: 'working',
          category: turn.role === 'note' ? 'note' : 'turn',
          status: 'active' as const,
          tags: [],
          occurred_at: turn.timestamp,
          created_at: turn.timestamp,
          metadata: { role: turn.role, session_id: sessionId, turn_id: turn.id },
          source: { kind: 'api' as const, session_id: sessionId, turn_ids: [turn.id] },
        },
        similarity,
        keyword,
      }));
  }
}

/** Working memory answers unless the request narrows to other layers, to categories, or to tags. */
function wantsWorking(request: SearchRequest): boolean {
  const { layers, categories } = splitMemoryTypes(request.memory_types);
  if (layers && !layers.includes('working')) return false;
  if ((categories && categories.length > 0) || (request.categories && request.categories.length > 0)) {
    const wanted = [...(categories ?? []), ...(request.categories ?? [])];
    if (!wanted.includes('turn') && !wanted.includes('note')) return false;
  }
  return !(request.tags && request.tags.length > 0);
}
