import type { Turn } from '@hindsight/memory-model';
import { z } from 'zod';

/** Categories an extractor may produce (DESIGN §5 step 2). */
export const EXTRACTED_CATEGORIES = [
  'preference',
  'fact',
  'decision',
  'commitment',
  'todo',
  'lesson',
  'error',
] as const;

export const VALUE_MAX_CHARS = 200;
export const VALUE_MIN_CHARS = 8;

/**
 * One durable item distilled from a session. `value` is what gets stored (one topic,
 * ideally 50–200 characters), `query` the question it answers, `key` its owner/subject
 * (`health.allergy.peanuts`), `turn_ids` the turns it came from (provenance).
 */
export const ExtractedItem = z
  .object({
    category: z.enum(EXTRACTED_CATEGORIES),
    key: z.string().trim().min(1).max(120),
    query: z.string().trim().min(3).max(300),
    value: z
      .string()
      .trim()
      .max(VALUE_MAX_CHARS)
      // Chinese says in six characters what English says in twenty.
      .refine((v) => v.length >= (/\p{Script=Han}/u.test(v) ? 4 : VALUE_MIN_CHARS), {
        message: `value must be at least ${VALUE_MIN_CHARS} characters (4 in Chinese)`,
      }),
    /** The slot's short value ("Lisbon", "shellfish", "no"): same key + another answer is an update. */
    answer: z.string().trim().min(1).max(120).optional(),
    /** The user took an earlier decision back ("make that Lisbon instead", "算了…还是…"). */
    reverses: z.boolean().optional(),
    /** The earlier answer this item takes back, when known ("make that Lisbon instead" replaces "Berlin"). */
    replaces: z.string().trim().min(1).max(120).optional(),
    confidence: z.number().min(0).max(1),
    turn_ids: z
      .array(z.string().regex(/^t\d+$/))
      .min(1)
      .max(50),
  })
  .strict();
export type ExtractedItem = z.infer<typeof ExtractedItem>;

export interface ExtractionContext {
  sessionId: string;
  userId: string;
}

export interface Extraction {
  items: ExtractedItem[];
  llmCalls: number;
  tokens: number;
}

/**
 * Turns a finished session into durable items. Implementations: `rules` (offline,
 * deterministic) and `llm` (an OpenAI-compatible chat model). An extractor only reads
 * user-visible statements of the user; it never stores the assistant's reasoning.
 * Output it cannot vouch for is an error (`ExtractionError`), never a partial list.
 */
export interface Extractor {
  readonly name: string;
  extract(turns: readonly Turn[], context: ExtractionContext): Promise<Extraction>;
}

/** The extractor produced output that fails the guard; retrying may help (a model is not deterministic). */
export class ExtractionError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ExtractionError';
  }
}

/** The session can never be extracted within the configured caps; retrying cannot help. */
export class ExtractionBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractionBudgetError';
  }
}
