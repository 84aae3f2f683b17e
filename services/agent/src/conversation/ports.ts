import type { Llm } from '@hindsight/llm';
import type { EndSessionResponse, Turn } from '@hindsight/memory-model';

/** A tool memory-api offers over MCP, as listed by `tools/list`. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What one tool call answered: `isError` results carry the server's actionable message in `text`. */
export interface ToolOutcome {
  isError: boolean;
  text: string;
  structured?: Record<string, unknown>;
}

/**
 * memory-api's MCP tools, called on behalf of one user at a time. Connection
 * failures surface as `DependencyUnavailableError`; tool failures as `isError` outcomes.
 */
export interface MemoryTools {
  list(): Promise<ToolSpec[]>;
  call(userId: string, name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  /** memory-api answers at all (readiness). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** Session state kept in memory-api: working-memory turns, session end, the user's profile summary. */
export interface SessionMemory {
  appendTurns(
    sessionId: string,
    userId: string,
    turns: Array<{ role: 'user' | 'assistant'; content: string }>,
  ): Promise<void>;
  /** The session's latest turns, oldest first (none for a new or consolidated session). */
  recentTurns(sessionId: string, userId: string, limit: number): Promise<Turn[]>;
  end(sessionId: string, userId: string): Promise<EndSessionResponse>;
  /** The profile summary consolidation keeps for the user, or null when there is none yet. */
  profileSummary(userId: string): Promise<string | null>;
}

export type { ChatMessage, FunctionTool, ModelAnswer, ToolCall } from '@hindsight/llm';

/** The chat model the conversation asks (`@hindsight/llm`'s port; its adapter speaks to any OpenAI-compatible server). */
export type ChatModel = Pick<Llm, 'complete'>;
