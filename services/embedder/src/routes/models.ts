import type { Embedder } from '@hindsight/embedding';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EmbedLimits } from './embed.ts';

const ModelsReply = z.object({
  model: z.string(),
  dim: z.number().int(),
  provider: z.string(),
  limits: z.object({ max_texts: z.number().int(), max_text_chars: z.number().int() }),
  models: z.array(z.object({ id: z.string(), dim: z.number().int(), provider: z.string() })),
});

/** `GET /models`: what this service embeds with; clients learn model and dimension here. */
export function modelRoutes(embedder: Embedder, limits: EmbedLimits, provider: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/models', { schema: { response: { 200: ModelsReply } } }, async () => ({
      model: embedder.model,
      dim: embedder.dimension,
      provider,
      limits: { max_texts: limits.maxTexts, max_text_chars: limits.maxTextChars },
      models: [{ id: embedder.model, dim: embedder.dimension, provider }],
    }));
  };
}
