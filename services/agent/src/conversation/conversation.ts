import { DependencyUnavailableError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import { CONTENT_LIMITS, type EndSessionResponse, type SearchHit, type Turn } from '@hindsight/memory-model';
import { estimateTokens } from '@hindsight/text';
import { expandedQuery, tellable } from './answer-selection.ts';
import type { ChatReply, ChatRequest } from './contract.ts';
import { correctedMemory, parseCorrection } from './correction.ts';
import { languageOf } from './language.ts';
import { searchMemory, usedMemory, writeMemory } from './memory-calls.ts';
import { classifyMessage, type MessageKind } from './message-kind.ts';
import { runModelTurn } from './model-turn.ts';
import {
  acknowledgeStatement,
  answerQuestion,
  confirmCorrection,
  confirmInstruction,
  type OfflineAnswer,
  type ReplyStyle,
  recommendFromMemory,
  rememberReply,
  socialReply,
} from './offline-policy.ts';
import type { ChatModel, MemoryTools, SessionMemory } from './ports.ts';
import { buildProfileSection } from './profile.ts';
import { buildMessages, memoryLines, rewriteMessages } from './prompt.ts';
import { isVague, withRecentTopics } from './query-rewrite.ts';
import { FOOD_CONSTRAINT_TERMS, recommendFood } from './recommendation.ts';
import { addressedToUser } from './second-person.ts';
import { standingPreferences } from './standing-preferences.ts';

export interface ConversationSettings {
  /** The model's context window in tokens. */
  contextTokens: number;
  /** Share of the context for the profile summary + top preferences. */
  profileShare: number;
  /** Share of the context for the memories retrieved for a message. */
  memoryShare: number;
  topK: number;
  recentTurns: number;
  maxToolRounds: number;
}

export interface ConversationDeps {
  tools: MemoryTools;
  sessions: SessionMemory;
  /** Absent → the deterministic offline policy answers. */
  model?: ChatModel;
  settings: ConversationSettings;
  log: Logger;
  /** The clock replies are dated against (tests pass a fixed one). */
  now?: () => Date;
}

/** Searched once per message for the profile section: what the user likes, avoids and must not have. */
const PROFILE_QUERY =
  'preferences likes dislikes allergies diet health constraints habits 偏好 喜欢 不喜欢 过敏 忌口 习惯';
/** Searched once per message: how the user wants to be answered (length, language). */
const REPLY_PREFERENCE_QUERY =
  'answers replies respond short brief concise language English Chinese 回答 回复 简短 简洁 中文 英文';

/**
 * The reference agent's turn (DESIGN §7): record the message in working memory, load the
 * profile and the memories that matter, answer (model with memory tools, or offline
 * policy), record the answer. All memory goes through memory-api.
 */
export class Conversation {
  constructor(private readonly deps: ConversationDeps) {}

  get mode(): 'llm' | 'offline' {
    return this.deps.model ? 'llm' : 'offline';
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const { tools, sessions, settings } = this.deps;
    const { user_id: userId, session_id: sessionId, message } = request;
    const recent = settings.recentTurns > 0 ? await sessions.recentTurns(sessionId, userId, settings.recentTurns) : [];
    await sessions.appendTurns(sessionId, userId, [{ role: 'user', content: message }]);

    const profileCap = Math.floor(settings.contextTokens * settings.profileShare);
    const [summary, profileFound, replyPreferences, query] = await Promise.all([
      sessions.profileSummary(userId),
      profileCap > 0
        ? searchMemory(tools, userId, {
            query: PROFILE_QUERY,
            memory_types: ['semantic'],
            top_k: 10,
            token_budget: profileCap,
            // The user's standing facts, whatever the message: not a relevance search, so no floor.
            min_score: 0,
          })
        : Promise.resolve(undefined),
      searchMemory(tools, userId, {
        query: REPLY_PREFERENCE_QUERY,
        memory_types: ['preference'],
        top_k: 5,
        token_budget: 256,
      }),
      this.standaloneQuery(message, recent),
    ]);
    const summaryText = summary?.trim() ?? null;
    const profileHits = (profileFound?.results ?? []).filter((h) => h.content.trim() !== summaryText);
    const profile = buildProfileSection(summaryText, profileHits, profileCap);
    const kind = classifyMessage(message);
    const found = await searchMemory(tools, userId, {
      query: searchQueryFor(kind, query),
      // This session's turns are searched too: what was said an hour ago answers a question now.
      session_id: sessionId,
      // Twice the memories the answer may use: the transcript's copies of the assistant's replies take places too.
      top_k: Math.min(settings.topK * 2, 50),
      token_budget: Math.max(1, Math.floor(settings.contextTokens * settings.memoryShare)),
    });
    // What can be told back (not the assistant's replies, the user's questions or summaries), best first.
    const relevant = tellable(found.results, message);
    const known = dedupe([...relevant, ...tellable(profileHits, message)]);
    const preferences = standingPreferences(
      [...replyPreferences.results, ...known],
      recent,
      kind.kind === 'instruction' ? message : undefined,
    );
    const style: ReplyStyle = {
      language: preferences.language ?? languageOf(message),
      short: preferences.short,
      now: this.deps.now?.() ?? new Date(),
    };

    let reply: string;
    let used: SearchHit[];
    const modelAnswer = this.deps.model
      ? await this.answerWithModel(
          this.deps.model,
          request,
          recent,
          profile.text,
          memoryLines(relevant.slice(0, settings.topK)),
        )
      : undefined;
    if (modelAnswer?.reply) {
      reply = modelAnswer.reply;
      used = [...profile.used, ...relevant.slice(0, settings.topK), ...modelAnswer.found];
    } else {
      const answer = await this.answerOffline(request, query, kind, known, style);
      reply = answer.reply;
      used = answer.used;
    }

    // Working memory refuses a longer turn; the user still gets the whole reply.
    await sessions.appendTurns(sessionId, userId, [
      { role: 'assistant', content: reply.slice(0, CONTENT_LIMITS.working) },
    ]);
    return { reply, memories_used: dedupe(used).map(usedMemory), session_id: sessionId };
  }

  async endSession(sessionId: string, userId: string): Promise<EndSessionResponse> {
    return this.deps.sessions.end(sessionId, userId);
  }

  /** Vague messages become standalone queries: by the model when there is one, else with the session's topics. */
  private async standaloneQuery(message: string, recent: readonly Turn[]): Promise<string> {
    if (!isVague(message)) return message;
    const offline = withRecentTopics(message, recent);
    const model = this.deps.model;
    if (!model) return offline;
    try {
      const answer = await model.complete({ messages: rewriteMessages(message, recent) });
      const rewritten = answer.content?.split('\n')[0]?.trim().slice(0, 500);
      return rewritten || offline;
    } catch (error) {
      this.deps.log.warn({ err: error }, 'rewriting a vague message with the model failed; using the session topics');
      return offline;
    }
  }

  private async answerWithModel(
    model: ChatModel,
    request: ChatRequest,
    recent: readonly Turn[],
    profile: string,
    memories: string,
  ) {
    const messages = buildMessages({ profile, memories, recent, message: request.message });
    try {
      const result = await runModelTurn(
        { model, tools: this.deps.tools, log: this.deps.log, maxToolRounds: this.deps.settings.maxToolRounds },
        { userId: request.user_id, sessionId: request.session_id, messages },
      );
      this.deps.log.debug(
        { toolCalls: result.toolCalls, promptTokens: estimateTokens(JSON.stringify(messages)) },
        'model answered',
      );
      if (!result.reply) this.deps.log.warn('the model answered with no text; answering with the offline policy');
      return result;
    } catch (error) {
      // An unreachable model must not leave the user without an answer: the offline policy still has the memories.
      if (!(error instanceof DependencyUnavailableError) || !isModelFailure(error)) throw error;
      this.deps.log.error({ err: error }, 'the model is unavailable; answering with the offline policy');
      return undefined;
    }
  }

  /** Rewrites the memory a correction is about, so later sessions know the right thing; confirms either way. */
  private async correct(request: ChatRequest, known: SearchHit[], style: ReplyStyle): Promise<OfflineAnswer> {
    const correction = parseCorrection(request.message);
    const corrected = correction && correctedMemory(correction, known);
    if (!correction || !corrected) return { reply: confirmCorrection(request.message, style), used: [] };
    const outcome = await writeMemory(this.deps.tools, request.user_id, {
      content: corrected.content,
      memory_type: corrected.memoryType,
      session_id: request.session_id,
    });
    if (!outcome.ok) return { reply: rememberReply(style.language, corrected.content, outcome), used: [] };
    const clause = addressedToUser(corrected.ownWords ? `The user said: ${corrected.content}` : corrected.content);
    return {
      reply: confirmCorrection(request.message, style, { clause, wrong: correction.wrong }),
      used: [corrected.corrects],
    };
  }

  private async answerOffline(
    request: ChatRequest,
    /** The message made standalone (a vague one carries the session's topics). */
    standalone: string,
    kind: MessageKind,
    known: SearchHit[],
    style: ReplyStyle,
  ): Promise<OfflineAnswer> {
    const message = request.message;
    switch (kind.kind) {
      case 'remember': {
        const outcome = await writeMemory(this.deps.tools, request.user_id, {
          content: kind.fact,
          memory_type: kind.memoryType,
          session_id: request.session_id,
        });
        return { reply: rememberReply(style.language, kind.fact, outcome), used: [] };
      }
      case 'question':
        // A vague question got this session's topics to search with; what it points back at is older than them.
        return answerQuestion(
          standalone,
          standalone === message ? known : known.filter((m) => m.layer !== 'working'),
          style,
        );
      case 'request':
        return kind.food ? recommendFood(style.language, message, known) : recommendFromMemory(message, known, style);
      case 'instruction':
        return { reply: confirmInstruction(message, style), used: [] };
      case 'correction':
        return this.correct(request, known, style);
      case 'statement':
        return { reply: acknowledgeStatement(message, style), used: [] };
      case 'social':
        return { reply: socialReply(kind.social, style), used: [] };
    }
  }
}

/** What to search memory with: a question also names the concepts it asks about, a food request the user's constraints. */
function searchQueryFor(kind: MessageKind, standalone: string): string {
  if (kind.kind === 'question') return expandedQuery(standalone);
  if (kind.kind === 'request' && kind.food) return `${standalone} ${FOOD_CONSTRAINT_TERMS}`;
  return standalone;
}

function dedupe(hits: readonly SearchHit[]): SearchHit[] {
  const byId = new Map<string, SearchHit>();
  for (const hit of hits) if (!byId.has(hit.id)) byId.set(hit.id, hit);
  return [...byId.values()];
}

function isModelFailure(error: DependencyUnavailableError): boolean {
  const details = error.details;
  return details !== undefined && !Array.isArray(details) && details.dependency === 'llm';
}
