/**
 * The stand-in for a hosted embedding model in the benchmarks: a local HTTP server speaking the
 * OpenAI embeddings protocol (`POST /v1/embeddings {model, input, encoding_format: 'float'}` →
 * `{object: 'list', data: [{object: 'embedding', index, embedding}], model, usage}`), answering
 * with the built-in embedder's vectors at the dimension hosted models return (1,536 by default),
 * so memory-api runs its `openai` provider, its HTTP round trips and its storage at that size.
 *
 *   PORT=<port> EMBEDDINGS_DIM=1536 node --import tsx scripts/bench/embeddings-server.ts
 */
import { BuiltinEmbedder } from '@hindsight/embedding';
import Fastify from 'fastify';

const { PORT: portText, EMBEDDINGS_DIM: dimensionText = '1536' } = process.env;
if (!portText) {
  process.stderr.write('usage: PORT=<port> [EMBEDDINGS_DIM=1536] embeddings-server.ts\n');
  process.exit(1);
}
const embedder = new BuiltinEmbedder({ dimension: Number(dimensionText) });
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
app.post<{ Body: { model?: string; input?: string | string[] } }>('/v1/embeddings', async (request, reply) => {
  const input = request.body?.input;
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
    return reply.code(400).send({ error: { message: '"input" must be a string or an array of strings' } });
  }
  const vectors = await embedder.embed(texts);
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: Array.from(vector) })),
    model: request.body.model ?? 'bench-embeddings',
    usage: { prompt_tokens: 0, total_tokens: 0 },
  };
});
app.get('/health', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(portText) });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
