import { DependencyUnavailableError } from '@hindsight/errors';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, ChatModel, FunctionTool, ModelAnswer } from '../conversation/ports.ts';

export interface OpenAiChatModelOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/** Any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, LM Studio) with function calling. */
export class OpenAiChatModel implements ChatModel {
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiChatModelOptions) {
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // Local servers ignore the key, but the client refuses to start without one.
      apiKey: options.apiKey ?? 'no-key-needed',
      timeout: options.timeoutMs,
      maxRetries: 1,
    });
  }

  async complete(request: {
    messages: ChatMessage[];
    tools?: FunctionTool[];
    toolChoice?: 'auto' | 'none';
  }): Promise<ModelAnswer> {
    const tools: ChatCompletionTool[] | undefined = request.tools?.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.options.model,
        messages: request.messages.map(toOpenAi),
        ...(tools && tools.length > 0 ? { tools, tool_choice: request.toolChoice ?? 'auto' } : {}),
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
    return { content: message?.content ?? null, toolCalls };
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
