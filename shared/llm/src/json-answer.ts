import type { z } from 'zod';

/** The model's answer is not the JSON the caller asked for. */
export class LlmAnswerError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LlmAnswerError';
  }
}

/**
 * Reads a JSON-mode answer against `schema`: `LlmAnswerError` when it is no JSON, or JSON of
 * another shape (the message quotes the start of the answer, never more).
 */
export function parseJsonAnswer<T extends z.ZodType>(text: string | null, schema: T, expected: string): z.output<T> {
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch (error) {
    throw new LlmAnswerError(`the LLM answered invalid JSON: ${JSON.stringify((text ?? '').slice(0, 120))}`, {
      cause: error,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new LlmAnswerError(`the LLM answer is not ${expected}`);
  return parsed.data;
}
