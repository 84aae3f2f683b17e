/**
 * The HTTP floor of the benchmarks: a bare Fastify process with one POST route that parses the
 * JSON body and answers a canned object (a real /retrieve answer captured by the bench), so it
 * costs exactly HTTP + JSON in both directions and nothing else.
 *
 *   PORT=<port> ANSWER_PATH=<answer.json> node --import tsx scripts/bench/http-floor.ts
 *
 * Configured through the environment like the services, so the bench starts it the same way.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const { PORT: portText, ANSWER_PATH: answerPath } = process.env;
if (!portText || !answerPath) {
  process.stderr.write('usage: PORT=<port> ANSWER_PATH=<answer.json> http-floor.ts\n');
  process.exit(1);
}
const answer: unknown = JSON.parse(readFileSync(answerPath, 'utf8'));
const app = Fastify({ logger: false });
app.post('/retrieve', async () => answer);
app.get('/health', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(portText) });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
