/**
 * The retrieval eval: ingest a conversation dataset through memory-api's real HTTP API, ask every
 * question, and score hindsight's answers beside a plain BM25 baseline over the same memories.
 */
import { createProgress } from '@hindsight/cli/progress';
import { type MemoryApiClient, MemoryApiError } from '@hindsight/memory-client';
import { CONTENT_LIMITS, MAX_TOKEN_BUDGET, type MemoryInput } from '@hindsight/memory-model';
import { estimateTokens } from '@hindsight/text';
import { Bm25Index } from './bm25.ts';
import {
  conversationTurns,
  type DatasetConversation,
  type DatasetTurn,
  loadDataset,
  unreachableEvidence,
} from './datasets.ts';
import {
  mean,
  percentile,
  type QuestionScore,
  round,
  type ScoreSummary,
  scoreQuestion,
  summariseByCategory,
} from './scoring.ts';
import { evalRunId, evalUserId, openEvalTarget } from './target.ts';

export const DEFAULT_KS = [5, 10, 25, 50] as const;
/** Turns per write request; the API takes up to 1000. */
const INGEST_BATCH = 500;

export interface EvalOptions {
  dataset: string;
  ks?: readonly number[];
  /** An already running memory-api; without it a child process is started and stopped. */
  url?: string;
  apiKey?: string;
  /** Progress bars on stderr. */
  progress?: boolean;
  /** How turns are written: batches of 500 (`batch`, the default) or one `/store` request each (`single`). */
  ingest?: IngestMode;
  /** Only the conversations whose id matches (e.g. REALTALK's tuning chats: `^Chat_(1|3|5|7|9)_`). */
  conversations?: RegExp;
}

export const INGEST_MODES = ['batch', 'single'] as const;
export type IngestMode = (typeof INGEST_MODES)[number];

export interface SystemResult {
  overall: ScoreSummary;
  byCategory: Record<string, ScoreSummary>;
  latencyMs: { p50: number; p95: number; mean: number };
}

export interface EvalResult {
  dataset: {
    name: string;
    path: string;
    layout: string;
    conversations: number;
    turns: number;
    questions: number;
    questionsWithoutEvidence: number;
    unreachableEvidence: number;
  };
  ks: number[];
  service: { url: string; spawned: boolean };
  ingest: {
    mode: IngestMode;
    memories: number;
    duplicates: number;
    rejected: number;
    seconds: number;
    perSecond: number;
  };
  hindsight: SystemResult & {
    /** memory-api's own `took_ms` (without HTTP and JSON). */
    serverMs: { p50: number; p95: number };
    /** k → mean estimated tokens of the first k context lines. */
    contextTokens: Record<number, number>;
    truncatedAnswers: number;
  };
  bm25: SystemResult;
  generatedAt: string;
  durationSeconds: number;
}

/** What one stored memory stands for: the turns (dia_ids) stored as it, and its text. */
interface StoredMemory {
  diaIds: string[];
  content: string;
}

export async function runEval(options: EvalOptions): Promise<EvalResult> {
  const started = performance.now();
  const ks = [...(options.ks ?? DEFAULT_KS)].sort((a, b) => a - b);
  const topK = ks[ks.length - 1] as number;
  const loaded = await loadDataset(options.dataset);
  const only = options.conversations;
  const dataset = only ? { ...loaded, conversations: loaded.conversations.filter((c) => only.test(c.id)) } : loaded;
  if (dataset.conversations.length === 0) throw new Error(`no conversation of ${options.dataset} matches ${only}`);
  const ingestMode = options.ingest ?? 'batch';
  const target = await openEvalTarget(options);
  const { client, url } = target;
  const showProgress = options.progress ?? true;
  const runId = evalRunId();

  try {
    const turns = dataset.conversations.reduce((n, c) => n + conversationTurns(c).length, 0);
    const ingestBar = createProgress({ label: 'ingest ', total: turns, unit: 'turns', enabled: showProgress });
    const ingestStarted = performance.now();
    const memories = new Map<string, Map<string, StoredMemory>>();
    const ingest = { memories: 0, duplicates: 0, rejected: 0 };
    for (const conversation of dataset.conversations) {
      const stored = await ingestConversation(
        client,
        userFor(runId, conversation),
        conversation,
        ingestMode,
        ingest,
        (n) => ingestBar.tick(n),
      );
      memories.set(conversation.id, stored);
    }
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    ingestBar.done();

    const asked = dataset.conversations.flatMap((c) =>
      c.questions.filter((q) => q.evidence.length > 0).map((q) => ({ c, q })),
    );
    const askBar = createProgress({ label: 'search ', total: asked.length, unit: 'questions', enabled: showProgress });
    const hindsightScores: QuestionScore[] = [];
    const bm25Scores: QuestionScore[] = [];
    const latencies: number[] = [];
    const serverLatencies: number[] = [];
    const bm25Latencies: number[] = [];
    const contextTokens: Record<number, number[]> = Object.fromEntries(ks.map((k) => [k, []]));
    let truncatedAnswers = 0;

    const indexes = new Map<string, Bm25Index>();
    for (const [conversationId, stored] of memories) {
      const index = new Bm25Index();
      for (const [id, memory] of stored) index.add(id, memory.content);
      indexes.set(conversationId, index);
    }

    for (const { c, q } of asked) {
      const stored = memories.get(c.id) as Map<string, StoredMemory>;
      const requestStarted = performance.now();
      const answer = await client.search({
        query: q.question,
        user_id: userFor(runId, c),
        top_k: topK,
        // Recall@k needs all k results: no budget cut.
        token_budget: MAX_TOKEN_BUDGET,
      });
      latencies.push(performance.now() - requestStarted);
      serverLatencies.push(answer.took_ms);
      if (answer.truncated) truncatedAnswers += 1;
      const lines = answer.context === '' ? [] : answer.context.split('\n');
      for (const k of ks) contextTokens[k]?.push(estimateTokens(lines.slice(0, k).join('\n')));
      const ranked = answer.results.map((r) => stored.get(r.id)?.diaIds ?? diaIdOf(r.metadata));
      hindsightScores.push(scoreQuestion(q.category, q.evidence, ranked, ks));

      const bm25Started = performance.now();
      const bm25Hits = (indexes.get(c.id) as Bm25Index).search(q.question, topK);
      bm25Latencies.push(performance.now() - bm25Started);
      bm25Scores.push(
        scoreQuestion(
          q.category,
          q.evidence,
          bm25Hits.map((h) => stored.get(h.id)?.diaIds ?? []),
          ks,
        ),
      );
      askBar.tick();
    }
    askBar.done();

    return {
      dataset: {
        name: dataset.name,
        path: options.dataset,
        layout: dataset.layout,
        conversations: dataset.conversations.length,
        turns,
        questions: asked.length,
        questionsWithoutEvidence: dataset.conversations.reduce((n, c) => n + c.questions.length, 0) - asked.length,
        unreachableEvidence: dataset.conversations.reduce((n, c) => n + unreachableEvidence(c), 0),
      },
      ks,
      service: { url, spawned: target.spawned },
      ingest: {
        mode: ingestMode,
        ...ingest,
        seconds: round(ingestSeconds),
        perSecond: round(ingest.memories / Math.max(ingestSeconds, 1e-9)),
      },
      hindsight: {
        ...summariseByCategory(hindsightScores, ks),
        latencyMs: latencySummary(latencies),
        serverMs: { p50: round(percentile(serverLatencies, 50)), p95: round(percentile(serverLatencies, 95)) },
        contextTokens: Object.fromEntries(ks.map((k) => [k, round(mean(contextTokens[k] ?? []))])),
        truncatedAnswers,
      },
      bm25: { ...summariseByCategory(bm25Scores, ks), latencyMs: latencySummary(bm25Latencies) },
      generatedAt: new Date().toISOString(),
      durationSeconds: round((performance.now() - started) / 1000),
    };
  } finally {
    await target.close();
  }
}

/** One user per conversation (DESIGN: the conversation's memories belong to one owner). */
function userFor(runId: string, conversation: DatasetConversation): string {
  return evalUserId(runId, conversation.id);
}

/**
 * Writes a conversation's turns as episodic memories, in batches or one request each, and returns what each stored
 * memory stands for. A turn identical to an earlier one is answered `duplicate` with the earlier
 * id; that memory then stands for both dia_ids, as it would for a real user.
 */
async function ingestConversation(
  client: MemoryApiClient,
  userId: string,
  conversation: DatasetConversation,
  mode: IngestMode,
  totals: { memories: number; duplicates: number; rejected: number },
  onWritten: (count: number) => void,
): Promise<Map<string, StoredMemory>> {
  const stored = new Map<string, StoredMemory>();
  const turns = conversationTurns(conversation);
  const size = mode === 'batch' ? INGEST_BATCH : 1;
  for (let start = 0; start < turns.length; start += size) {
    const batch = turns.slice(start, start + size);
    const items = batch.map((turn) => turnAsMemory(userId, conversation, turn));
    const results = mode === 'batch' ? await writeBatch(client, items) : await writeEach(client, items);
    results.forEach((result, i) => {
      const turn = batch[i] as DatasetTurn;
      const item = items[i] as MemoryInput;
      if (result === undefined) {
        totals.rejected += 1;
        return;
      }
      const memory = stored.get(result.id);
      if (memory) {
        memory.diaIds.push(turn.dia_id);
        totals.duplicates += 1;
      } else {
        stored.set(result.id, { diaIds: [turn.dia_id], content: item.content });
        totals.memories += 1;
      }
    });
    onWritten(batch.length);
  }
  return stored;
}

/** A batch is all-or-nothing; when the guard refuses one turn, the others are written one by one. */
async function writeBatch(client: MemoryApiClient, items: MemoryInput[]): Promise<Array<{ id: string } | undefined>> {
  try {
    return (await client.storeBatch(items)).items;
  } catch (error) {
    if (!(error instanceof MemoryApiError) || error.status !== 422) throw error;
    return writeEach(client, items);
  }
}

/** Each item through its own `/store` request; a turn the guard refuses (422) is `undefined`. */
async function writeEach(client: MemoryApiClient, items: MemoryInput[]): Promise<Array<{ id: string } | undefined>> {
  const results: Array<{ id: string } | undefined> = [];
  for (const item of items) {
    try {
      results.push(await client.store(item));
    } catch (error) {
      if (!(error instanceof MemoryApiError) || error.status !== 422) throw error;
      results.push(undefined);
    }
  }
  return results;
}

/** The memory text is what was said, by whom (and the caption of a shared photo). */
export function turnText(turn: DatasetTurn): string {
  const caption = turn.image_caption ? ` [shares a photo: ${turn.image_caption}]` : '';
  return `${turn.speaker}: ${turn.text}${caption}`.slice(0, CONTENT_LIMITS.episodic);
}

function turnAsMemory(userId: string, conversation: DatasetConversation, turn: DatasetTurn): MemoryInput {
  const session = turn.dia_id.split(':')[0] ?? '';
  return {
    content: turnText(turn),
    memory_type: 'episodic',
    user_id: userId,
    session_id: `${conversation.id}-${session}`.slice(0, 128),
    occurred_at: turn.occurred_at,
    metadata: { dia_id: turn.dia_id, speaker: turn.speaker, conversation: conversation.id },
  };
}

function diaIdOf(metadata: Record<string, unknown>): string[] {
  return typeof metadata.dia_id === 'string' ? [metadata.dia_id] : [];
}

function latencySummary(samples: readonly number[]): { p50: number; p95: number; mean: number } {
  return { p50: round(percentile(samples, 50)), p95: round(percentile(samples, 95)), mean: round(mean(samples)) };
}
