import type { Logger } from '@hindsight/logger';
import { type SearchHit, SearchResponse } from '@hindsight/memory-model';
import type { ChatMessage, ChatModel, FunctionTool, MemoryTools, ToolCall, ToolSpec } from './ports.ts';

export interface ModelTurnDeps {
  model: ChatModel;
  tools: MemoryTools;
  log: Logger;
  /** Model answers that may call tools; then the model must answer in words. */
  maxToolRounds: number;
}

export interface ModelTurnInput {
  userId: string;
  sessionId: string;
  messages: ChatMessage[];
}

export interface ModelTurnResult {
  reply: string;
  /** Memories the model received from its own memory_search calls. */
  found: SearchHit[];
  toolCalls: number;
}

/**
 * One reply from the model with memory-api's MCP tools as function tools: the model
 * may search, write or forget; each call goes through MCP for this user and its result
 * goes back to the model, for at most `maxToolRounds` rounds.
 */
export async function runModelTurn(deps: ModelTurnDeps, input: ModelTurnInput): Promise<ModelTurnResult> {
  const specs = await deps.tools.list();
  const functions = specs.map(functionTool);
  const known = new Set(specs.map((s) => s.name));
  const messages = [...input.messages];
  const found: SearchHit[] = [];
  let toolCalls = 0;

  for (let round = 0; ; round++) {
    const mayCallTools = round < deps.maxToolRounds;
    const answer = await deps.model.complete({
      messages,
      tools: functions,
      toolChoice: mayCallTools ? 'auto' : 'none',
    });
    if (answer.toolCalls.length === 0 || !mayCallTools) {
      return { reply: answer.content?.trim() ?? '', found, toolCalls };
    }
    messages.push({ role: 'assistant', content: answer.content, toolCalls: answer.toolCalls });
    for (const call of answer.toolCalls) {
      toolCalls++;
      const content = await runToolCall(deps, input, call, known, found);
      messages.push({ role: 'tool', toolCallId: call.id, content });
    }
  }
}

async function runToolCall(
  deps: ModelTurnDeps,
  input: ModelTurnInput,
  call: ToolCall,
  known: ReadonlySet<string>,
  found: SearchHit[],
): Promise<string> {
  if (!known.has(call.name)) return `Unknown tool "${call.name}". Available: ${[...known].join(', ')}.`;
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'Tool arguments must be a JSON object.';
    args = parsed as Record<string, unknown>;
  } catch {
    return 'Tool arguments were not valid JSON; send a JSON object.';
  }
  // The user is the agent's to decide, never the model's: the MCP connection carries it.
  delete args.user_id;
  if (call.name === 'memory_write' && args.session_id === undefined) args.session_id = input.sessionId;
  deps.log.debug({ tool: call.name }, 'model called a memory tool');
  const outcome = await deps.tools.call(input.userId, call.name, args);
  if (call.name === 'memory_search' && !outcome.isError) {
    const parsed = SearchResponse.safeParse(outcome.structured);
    if (parsed.success) found.push(...parsed.data.results);
  }
  return outcome.text;
}

/** An MCP tool as an OpenAI function tool, without `user_id` (the agent fills it). */
export function functionTool(spec: ToolSpec): FunctionTool {
  const {
    $schema: _schema,
    properties,
    required,
    ...rest
  } = spec.inputSchema as {
    $schema?: unknown;
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const { user_id: _user, ...visible } = properties ?? {};
  const parameters: Record<string, unknown> = { ...rest, type: 'object', properties: visible };
  const stillRequired = (required ?? []).filter((name) => name !== 'user_id');
  if (stillRequired.length > 0) parameters.required = stillRequired;
  return { name: spec.name, description: spec.description, parameters };
}
