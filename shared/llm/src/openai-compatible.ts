import { DependencyUnavailableError } from '@hindsight/errors';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, ChatRequest, Llm, ModelAnswer } from './port.ts';

/** Where an OpenAI-compatible server is and how long to wait for it. */
export interface OpenAiConnection {
  /** Base URL including `/v1`, e.g. http://127.0.0.1:11434/v1 for Ollama. */
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  /** The SDK's own retries; 0 where the caller retries (a job queue, a circuit breaker). */
  maxRetries?: number;
}

/**
 * The one place an OpenAI SDK client is made, for chat (`OpenAiCompatibleLlm`) and embeddings
 * (shared/embedding). The SDK refuses to start without a key; local servers ignore whatever is sent.
 */
export function openAiClient(connection: OpenAiConnection): OpenAI {
  return new OpenAI({
    baseURL: connection.baseUrl,
    apiKey: connection.apiKey ?? 'none',
    timeout: connection.timeoutMs,
    maxRetries: connection.maxRetries ?? 0,
  });
}

/** The `Llm` port over any OpenAI-compatible chat-completions server, with function calling and JSON mode. */
export class OpenAiCompatibleLlm implements Llm {
  readonly name: string;
  private readonly client: OpenAI;

  constructor(
    readonly model: string,
    connection: OpenAiConnection,
  ) {
    this.name = `llm:${model}`;
    this.client = openAiClient(connection);
  }

  async complete(request: ChatRequest): Promise<ModelAnswer> {
    const tools: ChatCompletionTool[] | undefined = request.tools?.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.model,
        messages: request.messages.map(toOpenAi),
        ...(tools && tools.length > 0 ? { tools, tool_choice: request.toolChoice ?? 'auto' } : {}),
        ...(request.json ? { response_format: { type: 'json_object' as const } } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      });
    } catch (error) {
      throw new DependencyUnavailableError('llm', error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
    const message = completion.choices[0]?.message;
    const toolCalls = (message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    );
    return {
      content: message?.content ?? null,
      toolCalls,
      ...(completion.usage?.total_tokens !== undefined ? { totalTokens: completion.usage.total_tokens } : {}),
    };
  }
}

function toOpenAi(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls && message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}
