/** A function call the model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  /** The model's raw JSON arguments. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A function the model may call (JSON Schema parameters). */
export interface FunctionTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: FunctionTool[];
  toolChoice?: 'auto' | 'none';
  /** Ask for one JSON object as the answer (`response_format: json_object`). */
  json?: boolean;
  maxTokens?: number;
  /** 0 for decisions and extraction; the server's default otherwise. */
  temperature?: number;
}

export interface ModelAnswer {
  content: string | null;
  toolCalls: ToolCall[];
  /** Prompt + completion tokens, when the server reports them. */
  totalTokens?: number;
}

/**
 * A chat model: any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, LM Studio)
 * through `OpenAiCompatibleLlm`. `complete` answers the model's message, or fails with
 * `DependencyUnavailableError('llm', …)` when the server cannot be reached, times out or answers an
 * error; what the caller does then (fall back to rules, retry the job) is the caller's decision.
 */
export interface Llm {
  /** `llm:<model>`: recorded as who decided or extracted. */
  readonly name: string;
  readonly model: string;
  complete(request: ChatRequest): Promise<ModelAnswer>;
}
