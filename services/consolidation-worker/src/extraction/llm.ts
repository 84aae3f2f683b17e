import { type Llm, LlmAnswerError, parseJsonAnswer } from '@hindsight/llm';
import type { Turn } from '@hindsight/memory-model';
import { estimateTokens } from '@hindsight/text';
import { z } from 'zod';
import {
  EXTRACTED_CATEGORIES,
  type Extraction,
  ExtractionBudgetError,
  ExtractionError,
  type Extractor,
} from './port.ts';

export interface LlmExtractorSettings {
  /** Most chat calls one job may make. */
  maxCalls: number;
  /** Most tokens (prompt + completion) one job may spend. */
  maxTokens: number;
  /** Transcript characters sent per call; longer sessions take several calls. */
  charsPerCall: number;
}

const Answer = z.object({ items: z.array(z.unknown()) });

const SYSTEM_PROMPT = `You take the notes a careful person would take about the user from a finished conversation.
Each transcript line is "<turn id> [<conversation time, UTC>] <role>: <text>".
Return JSON: {"items": [{"category", "key", "query", "value", "answer", "confidence", "turn_ids", "replaces"?}]}.
- category: one of ${EXTRACTED_CATEGORIES.join(', ')}.
- key: the slot, "<subject>.<attribute>", lowercase, dotted, stable: "user.home", "user.allergy.shellfish",
  "person.priya.diet", "org.customers", "decision.offsite_city", "preference.length". One slot, one current value:
  allergies and other facts that can hold several values put the value in the key.
- query: the question this note answers, as a question ("What is the user allergic to?").
- value: one topic, 20-200 characters, self-contained, about the user in the third person ("The user's wife Priya is
  vegetarian."), in the language the user spoke, keeping their own words for names, numbers and amounts. Resolve
  relative dates against the conversation time and keep both ("next month (April 2026)").
- answer: the slot's short value ("Priya", "shellfish", "200 dollars a night", "Lisbon", "no").
- confidence: 0..1, how sure the conversation makes it.
- turn_ids: ids of the user's turns it comes from (e.g. ["t3"]).
- replaces: only for a decision the user took back in this conversation ("make that Lisbon instead"): the old answer.
  Give only the standing decision, never the one that was reversed.
Keep: the user's own facts (name, home, job, health conditions, allergies however phrased, diet), people and pets
around the user with their relation and what is said of them, preferences and standing instructions ("always include
an answer key", "metric units only"), constraints and budgets, plans with their dates, decisions (and decisions not to
do something), commitments and reminders, organisation facts (name, product, customers, revenue, plans).
Skip: greetings, thanks, acknowledgements, small talk, transient state ("I'm in a meeting", "I'm tired"), one-off
requests to the assistant ("write me a quiz"), questions, and anything only the assistant said. No items → {"items": []}.`;

/**
 * The model-backed extractor: any OpenAI-compatible chat endpoint, JSON output.
 * Caps per job on calls and tokens; output that is not JSON or not `{items: [...]}`
 * is an `ExtractionError` (the job fails and retries; nothing is written or deleted).
 * Items are schema-checked afterwards by the shared guard.
 */
export class LlmExtractor implements Extractor {
  readonly name: string;

  /** `llm` should not retry by itself: BullMQ retries the whole job with backoff. */
  constructor(
    private readonly llm: Llm,
    private readonly settings: LlmExtractorSettings,
  ) {
    this.name = llm.name;
  }

  async extract(turns: readonly Turn[]): Promise<Extraction> {
    const chunks = transcriptChunks(turns, this.settings.charsPerCall);
    if (chunks.length > this.settings.maxCalls) {
      throw new ExtractionBudgetError(
        `the session needs ${chunks.length} LLM calls, more than LLM_MAX_CALLS_PER_JOB=${this.settings.maxCalls}`,
      );
    }
    const items: unknown[] = [];
    let tokens = 0;
    let calls = 0;
    for (const chunk of chunks) {
      const projected = tokens + estimateTokens(SYSTEM_PROMPT + chunk);
      if (projected > this.settings.maxTokens) {
        throw new ExtractionBudgetError(
          `the session needs more than LLM_MAX_TOKENS_PER_JOB=${this.settings.maxTokens} tokens`,
        );
      }
      calls += 1;
      const answer = await this.llm.complete({
        temperature: 0,
        json: true,
        maxTokens: Math.min(4096, this.settings.maxTokens - projected),
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: chunk },
        ],
      });
      const text = answer.content ?? '';
      tokens += answer.totalTokens ?? estimateTokens(SYSTEM_PROMPT + chunk + text);
      if (tokens > this.settings.maxTokens) {
        throw new ExtractionBudgetError(
          `the extraction spent ${tokens} tokens, more than LLM_MAX_TOKENS_PER_JOB=${this.settings.maxTokens}`,
        );
      }
      items.push(...parseAnswer(text));
    }
    return { items: items as Extraction['items'], llmCalls: calls, tokens };
  }
}

/** The answer's items; an answer that is no JSON or of another shape is an `ExtractionError` (the job retries). */
function parseAnswer(text: string): unknown[] {
  try {
    return parseJsonAnswer(text, Answer, '{"items": [...]}').items;
  } catch (error) {
    if (error instanceof LlmAnswerError) throw new ExtractionError(error.message, { cause: error });
    throw error;
  }
}

/** The transcript as `t3 user: ...` lines, split into chunks that fit one call. */
function transcriptChunks(turns: readonly Turn[], charsPerCall: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const turn of turns) {
    if (turn.role === 'system' || turn.role === 'note') continue;
    const line = `${turn.id} [${turn.timestamp.slice(0, 16).replace('T', ' ')}] ${turn.role}: ${turn.content.replace(/\s+/g, ' ')}\n`;
    if (current.length > 0 && current.length + line.length > charsPerCall) {
      chunks.push(current);
      current = '';
    }
    current += line;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
