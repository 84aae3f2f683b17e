import type { Logger } from '@hindsight/logger';
import OpenAI from 'openai';
import { z } from 'zod';
import type { ContradictionJudge } from '../../memory/contradiction.ts';

export interface LlmJudgeSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

const Verdict = z.object({ contradicts: z.boolean() });

const SYSTEM_PROMPT = [
  'You compare two statements a user made about themselves at different times.',
  'Answer {"contradicts": true} when the newer statement makes the older one no longer true',
  '(a changed preference, a quit habit, a new value for the same fact), otherwise {"contradicts": false}.',
  'Statements about different subjects never contradict. Answer with the JSON object only.',
].join(' ');

/**
 * The merge/supersede decision of DESIGN §3 made by an LLM (any OpenAI-compatible
 * chat endpoint). A write must not fail because the model is down or answers
 * nonsense, so such a call falls back to the rule judge, logged at warn.
 */
export class LlmContradictionJudge implements ContradictionJudge {
  readonly name: string;
  private readonly client: OpenAI;

  constructor(
    private readonly settings: LlmJudgeSettings,
    private readonly fallback: ContradictionJudge,
    private readonly log: Logger,
  ) {
    this.name = `llm:${settings.model}`;
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey ?? 'none',
      timeout: settings.timeoutMs,
      maxRetries: 1,
    });
  }

  async contradicts(older: string, newer: string): Promise<boolean> {
    try {
      const completion = await this.client.chat.completions.create({
        model: this.settings.model,
        temperature: 0,
        max_tokens: 20,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: JSON.stringify({ older, newer }) },
        ],
      });
      const text = completion.choices[0]?.message?.content ?? '';
      return Verdict.parse(JSON.parse(text)).contradicts;
    } catch (error) {
      this.log.warn({ err: error, judge: this.name }, 'LLM contradiction check failed; deciding by rules');
      return this.fallback.contradicts(older, newer);
    }
  }
}

/** The LLM judge when `LLM_BASE_URL` and `LLM_MODEL` are set, the rule judge otherwise. */
export function createContradictionJudge(
  config: {
    LLM_BASE_URL?: string | undefined;
    LLM_MODEL?: string | undefined;
    LLM_API_KEY?: string | undefined;
    LLM_TIMEOUT_MS: number;
  },
  rules: ContradictionJudge,
  log: Logger,
): ContradictionJudge {
  if (!config.LLM_BASE_URL || !config.LLM_MODEL) return rules;
  return new LlmContradictionJudge(
    {
      baseUrl: config.LLM_BASE_URL,
      model: config.LLM_MODEL,
      timeoutMs: config.LLM_TIMEOUT_MS,
      ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
    },
    rules,
    log,
  );
}
