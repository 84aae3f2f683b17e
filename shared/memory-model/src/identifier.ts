import { z } from 'zod';

export const MAX_ID_LENGTH = 128;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CONTROL = /\p{Cc}/u;

/**
 * Why a string cannot name a user, agent, session or memory, or undefined when it can. Ids end up
 * in Redis keys, URLs, log lines and job ids: a lone surrogate cannot be encoded as UTF-8, a
 * control character (NUL, newline) breaks keys and logs, and a blank id is no one's.
 */
export function identifierProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_ID_LENGTH) return `must be at most ${MAX_ID_LENGTH} characters`;
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  if (CONTROL.test(value)) return 'must not hold control characters (NUL, tab, newline, …)';
  if (value.trim() === '') return 'must not be blank';
  return undefined;
}

/** A user, agent, session or memory id: 1–128 characters of well-formed text, no control characters, not blank. */
export const Identifier = z.string().superRefine((value, ctx) => {
  const problem = identifierProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const MAX_JSON_DEPTH = 32;

/** How deeply a JSON value nests (a scalar 0, `{}` 1, `{"a": {}}` 2), without recursion. */
export function jsonDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [next, depth] = stack.pop() as [unknown, number];
    if (typeof next !== 'object' || next === null) continue;
    const here = depth + 1;
    deepest = Math.max(deepest, here);
    if (deepest > stopAbove) return deepest;
    for (const inner of Object.values(next)) stack.push([inner, here]);
  }
  return deepest;
}

/**
 * Free JSON kept and returned verbatim (metadata, a turn's tool call), bounded in depth and size:
 * nesting past `MAX_JSON_DEPTH` breaks ordinary JSON readers (and would overflow the size check's
 * own serialiser), so it is refused before the size is measured.
 */
export function boundedJson<T extends z.ZodType>(schema: T, maxBytes: number) {
  return schema.superRefine((value, ctx) => {
    if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      ctx.addIssue({ code: 'custom', message: `must nest at most ${MAX_JSON_DEPTH} levels deep` });
      return;
    }
    if (Buffer.byteLength(JSON.stringify(value)) > maxBytes) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${maxBytes} bytes of JSON` });
    }
  });
}
