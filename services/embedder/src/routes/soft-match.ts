import type { SoftMatcher } from '@hindsight/embedding';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EmbedLimits } from './embed.ts';

/** Texts a soft match is asked for at most: a search soft-matches its best candidates only. */
const MAX_SOFT_MATCH_TEXTS = 500;

export const SoftMatchRequestBody = z.object({
  query: z.string().min(1).describe('the question whose content words are matched'),
  texts: z
    .array(z.string())
    .min(1)
    .max(MAX_SOFT_MATCH_TEXTS)
    .describe('candidate texts, in order (a conversation turn, optionally with its neighbouring turns)'),
});

/**
 * `POST /soft-match {query, texts}` → `{scores}`: word-level soft matching where the word vectors
 * live (memory-api reranks conversation turns with it and loads no word table of its own). One
 * score in 0..1 per text, in order.
 */
export function softMatchRoutes(matcher: SoftMatcher, limits: EmbedLimits): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/soft-match',
      {
        schema: {
          body: SoftMatchRequestBody.refine(
            (body) => [body.query, ...body.texts].every((t) => t.length <= limits.maxTextChars),
            { message: `query and texts are at most ${limits.maxTextChars} characters each` },
          ),
          response: { 200: z.object({ scores: z.array(z.number()) }) },
        },
      },
      async (request) => ({ scores: await matcher.softScores(request.body) }),
    );
  };
}
