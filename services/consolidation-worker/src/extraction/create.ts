import { OpenAiCompatibleLlm } from '@hindsight/llm';
import type { WorkerConfig } from '../config.ts';
import { LlmExtractor } from './llm.ts';
import type { Extractor } from './port.ts';
import { RuleExtractor } from './rules.ts';

/** `EXTRACTOR=auto` uses the LLM when one is configured and the rules otherwise. */
export function createExtractor(config: WorkerConfig): Extractor {
  const wantsLlm =
    config.EXTRACTOR === 'llm' || (config.EXTRACTOR === 'auto' && config.LLM_BASE_URL && config.LLM_MODEL);
  if (!wantsLlm || !config.LLM_BASE_URL || !config.LLM_MODEL) return new RuleExtractor();
  const llm = new OpenAiCompatibleLlm(config.LLM_MODEL, {
    baseUrl: config.LLM_BASE_URL,
    apiKey: config.LLM_API_KEY,
    timeoutMs: config.LLM_TIMEOUT_MS,
    maxRetries: 0,
  });
  return new LlmExtractor(llm, {
    maxCalls: config.LLM_MAX_CALLS_PER_JOB,
    maxTokens: config.LLM_MAX_TOKENS_PER_JOB,
    charsPerCall: config.LLM_CHARS_PER_CALL,
  });
}
