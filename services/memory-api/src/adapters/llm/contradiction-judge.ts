import type { Logger } from '@hindsight/logger';
import OpenAI from 'openai';
import { z } from 'zod';
import {
  analyse,
  type ContradictionJudge,
  type Relation,
  relationBeyondDoubt,
  type StatementInput,
} from '../../memory/contradiction.ts';

export interface LlmJudgeSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

const Verdict = z.object({ relation: z.enum(['contradicts', 'refines', 'unrelated']) });

const SYSTEM_PROMPT = [
  'You compare two memories about the same user, an older and a newer one (each a statement, maybe with',
  'the question it answers and an attribute key). Answer {"relation": "contradicts"} when the newer one makes',
  'the older no longer true: the same subject and the same attribute with an incompatible value (a changed',
  'preference, a habit given up, a move, a new job, a new value for the same key). Answer {"relation": "refines"}',
  'when both say the same thing about the same attribute and the newer only restates it or adds detail.',
  'Otherwise answer {"relation": "unrelated"}: statements about different attributes never contradict, even',
  'when they are worded alike ("is vegetarian" and "is afraid of heights"). Answer with the JSON object only.',
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

  async relate(older: StatementInput, newer: StatementInput): Promise<Relation> {
    // What needs no reading of the meaning (no content words, different attribute keys) is never asked.
    const settled = relationBeyondDoubt(analyse(older), analyse(newer));
    if (settled) return settled;
    try {
      const completion = await this.client.chat.completions.create({
        model: this.settings.model,
        temperature: 0,
        max_tokens: 20,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: JSON.stringify({ older: shown(older), newer: shown(newer) }) },
        ],
      });
      const text = completion.choices[0]?.message?.content ?? '';
      return { kind: Verdict.parse(JSON.parse(text)).relation, reason: `judge:${this.name}` };
    } catch (error) {
      this.log.warn({ err: error, judge: this.name }, 'LLM contradiction check failed; deciding by rules');
      return this.fallback.relate(older, newer);
    }
  }
}

/** What the model is shown of a memory: the statement, and the question and key when there are any. */
function shown(input: StatementInput): Record<string, string> {
  return {
    statement: input.content,
    ...(input.query ? { question: input.query } : {}),
    ...(input.key ? { key: input.key } : {}),
  };
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
