import { type Embedder, encodeVectorBase64 } from '@hindsight/embedding';
import { AppError, ConflictError } from '@hindsight/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EmbedderMetrics } from '../metrics.ts';

export interface EmbedLimits {
  maxTexts: number;
  maxTextChars: number;
}

export const EmbedRequest = z.object({
  texts: z.array(z.string()).min(1).describe('texts to embed, in order'),
  model: z.string().optional().describe('the model the caller expects; a different served model is refused (409)'),
  encoding_format: z
    .enum(['float', 'base64'])
    .default('float')
    .describe('base64: each vector as little-endian float32 bytes, base64-encoded (4 bytes per dimension)'),
});

class LimitExceededError extends AppError {
  constructor(code: string, message: string, details: Record<string, unknown>) {
    super(code, 413, message, details);
  }
}

/**
 * `POST /embed {texts, model?, encoding_format?}` → `{model, dim, encoding_format, vectors}`;
 * `POST /forget {texts}` → `{forgotten}` (cache entries of those texts dropped);
 * `POST /align {query, texts}` → `{scores}` (word alignment, builtin/word-alignment.ts).
 */
export function embedRoutes(
  embedder: Embedder,
  limits: EmbedLimits,
  metrics: EmbedderMetrics,
  provider: string,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/embed',
      // No response schema: validating hundreds of thousands of floats per answer would cost more
      // than embedding them. The shape is fixed below.
      { schema: { body: EmbedRequest } },
      async (request) => {
        const { texts, model, encoding_format } = request.body;
        checkLimits(texts, limits);
        if (model !== undefined && model !== embedder.model) {
          throw new ConflictError(`this embedder serves model "${embedder.model}", not "${model}"`, {
            served: embedder.model,
            requested: model,
          });
        }
        const stopTimer = metrics.embedDuration.startTimer({ provider });
        let vectors: Float32Array[];
        try {
          vectors = await embedder.embed(texts);
        } catch (error) {
          metrics.embedErrors.inc({ provider });
          throw error;
        } finally {
          stopTimer();
        }
        metrics.texts.inc({ provider }, texts.length);
        return {
          model: embedder.model,
          dim: embedder.dimension,
          encoding_format,
          vectors: encoding_format === 'base64' ? vectors.map(encodeVectorBase64) : vectors.map((v) => Array.from(v)),
        };
      },
    );

    app.post(
      '/forget',
      {
        schema: {
          body: z.object({ texts: z.array(z.string()).min(1).describe('texts whose cached vectors are dropped') }),
          response: { 200: z.object({ forgotten: z.number().int() }) },
        },
      },
      // User erasure: memory-api names the erased texts; their cached vectors go from every tier.
      async (request) => {
        checkLimits(request.body.texts, limits);
        return { forgotten: (await embedder.forget?.(request.body.texts)) ?? 0 };
      },
    );

    app.post(
      '/align',
      {
        schema: {
          body: z.object({
            query: z.string().min(1).describe('the search query'),
            texts: z.array(z.string()).min(1).describe('candidate texts, in order'),
          }),
          response: {
            200: z.object({
              scores: z
                .array(z.number())
                .nullable()
                .describe(
                  'per text, how well its words match the query words (0..1); null: the model has no word vectors',
                ),
            }),
          },
        },
      },
      // Word by word (late interaction), for the read path to rerank its best candidates.
      async (request) => {
        const { query, texts } = request.body;
        checkLimits([query, ...texts], { ...limits, maxTexts: limits.maxTexts + 1 });
        return { scores: (await embedder.align?.(query, texts)) ?? null };
      },
    );
  };
}

function checkLimits(texts: readonly string[], limits: EmbedLimits): void {
  if (texts.length > limits.maxTexts) {
    throw new LimitExceededError(
      'too_many_texts',
      `at most ${limits.maxTexts} texts per request, got ${texts.length}: split the batch`,
      { limit: limits.maxTexts, got: texts.length },
    );
  }
  texts.forEach((text, index) => {
    if (text.length > limits.maxTextChars) {
      throw new LimitExceededError(
        'text_too_long',
        `texts[${index}] has ${text.length} characters, the limit is ${limits.maxTextChars}: chunk long documents`,
        { index, limit: limits.maxTextChars, got: text.length },
      );
    }
    if (text.trim() === '') {
      throw new AppError('empty_text', 422, `texts[${index}] is empty: there is nothing to embed`, { index });
    }
  });
}
