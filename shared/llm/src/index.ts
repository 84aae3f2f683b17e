export { LlmAnswerError, parseJsonAnswer } from './json-answer.ts';
export { OpenAiCompatibleLlm, type OpenAiConnection, openAiClient } from './openai-compatible.ts';
export type { ChatMessage, ChatRequest, FunctionTool, Llm, ModelAnswer, ToolCall } from './port.ts';
