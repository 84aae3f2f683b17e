import { type Llm, OpenAiCompatibleLlm, parseJsonAnswer } from '@hindsight/llm';
import type { Logger } from '@hindsight/logger';
import { z } from 'zod';
import {
  analyse,
  type ContradictionJudge,
  type Relation,
  relationBeyondDoubt,
  type StatementInput,
} from '../../memory/contradiction.ts';

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

  constructor(
    private readonly llm: Llm,
    private readonly fallback: ContradictionJudge,
    private readonly log: Logger,
  ) {
    this.name = llm.name;
  }

  async relate(older: StatementInput, newer: StatementInput): Promise<Relation> {
    // What needs no reading of the meaning (no content words, different attribute keys) is never asked.
    const settled = relationBeyondDoubt(analyse(older), analyse(newer));
    if (settled) return settled;
    try {
      const answer = await this.llm.complete({
        temperature: 0,
        maxTokens: 20,
        json: true,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: JSON.stringify({ older: shown(older), newer: shown(newer) }) },
        ],
      });
      const verdict = parseJsonAnswer(answer.content, Verdict, '{"relation": …}');
      return { kind: verdict.relation, reason: `judge:${this.name}` };
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
  const llm = new OpenAiCompatibleLlm(config.LLM_MODEL, {
    baseUrl: config.LLM_BASE_URL,
    apiKey: config.LLM_API_KEY,
    timeoutMs: config.LLM_TIMEOUT_MS,
    maxRetries: 1,
  });
  return new LlmContradictionJudge(llm, rules, log);
}
