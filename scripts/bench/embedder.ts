/**
 * Embedder throughput, printed (nothing written):
 *   npx tsx scripts/bench/embedder.ts [--texts 4000] [--clients 32] [--dim 512]
 *
 * 1. builtin, one text per call, one caller (the floor).
 * 2. builtin under N concurrent clients, direct vs. micro-batched.
 * 3. the same two against a simulated model server (one call at a time, 2 ms per call + 0.02 ms
 *    per text, like a GPU embedding server), where batching pays. Simulated with sleeps, and
 *    labelled so in the output.
 * 4. LRU cache: the same texts cold, then warm; the ratio is the hit speed-up.
 * Figures vary with the machine; compare ratios within one run.
 */
import { parseArgs } from 'node:util';
import { BuiltinEmbedder, CachedEmbedder, type Embedder, MicroBatcher } from '@hindsight/embedding';
import { seededRandom } from '@hindsight/testing';

const WORDS = (
  'user prefers concise answers coffee tea allergic peanuts meeting friday project deadline travel berlin tokyo ' +
  'family dinner recipe pasta garden dog walk morning running marathon training book novel author music concert ' +
  'guitar piano doctor appointment medicine budget salary interview manager team release bug database migration'
).split(' ');

/** Deterministic pseudo-random sentences, so runs are comparable. */
export function benchTexts(count: number, seed = 42): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const n = 8 + Math.floor(next() * 12);
    return `${Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ')} #${i}`;
  });
}

/**
 * Stands for a model server (Ollama, TEI, vLLM on one GPU): it runs one call at a time and a call
 * costs a fixed overhead plus a little per text, so a batch of 32 costs barely more than one text.
 * Simulated with sleeps; the vectors still come from the builtin embedder.
 */
class SimulatedModelServer implements Embedder {
  private queue: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly inner: Embedder,
    private readonly perCallMs: number,
    private readonly perTextMs: number,
  ) {}
  get model(): string {
    return this.inner.model;
  }
  get dimension(): number {
    return this.inner.dimension;
  }
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    const run = this.queue.then(async () => {
      await new Promise((resolve) => setTimeout(resolve, this.perCallMs + this.perTextMs * texts.length));
      return this.inner.embed(texts);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
  check(): Promise<void> {
    return this.inner.check();
  }
}

/** N clients each embed their share of the texts one call at a time; returns embeddings/s. */
async function concurrentRate(embedder: Embedder, texts: readonly string[], clients: number): Promise<number> {
  let nextIndex = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = nextIndex++; i < texts.length; i = nextIndex++) await embedder.embed([texts[i] as string]);
    }),
  );
  return texts.length / ((performance.now() - started) / 1000);
}

async function timeMs(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function rate(n: number): string {
  return `${Math.round(n).toLocaleString('en-US')} emb/s`.padStart(14);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      texts: { type: 'string', default: '4000' },
      clients: { type: 'string', default: '32' },
      dim: { type: 'string', default: '512' },
    },
  });
  const count = Number(values.texts);
  const clients = Number(values.clients);
  const texts = benchTexts(count);
  const builtin = new BuiltinEmbedder({ dimension: Number(values.dim) });
  const batch = { maxBatchSize: 64, maxWaitMs: 2 };
  console.log(
    `embedder bench: ${count} texts, ${clients} clients, ${builtin.model}, batches of ≤${batch.maxBatchSize} / ≤${batch.maxWaitMs} ms`,
  );

  await builtin.embed(benchTexts(500, 7)); // warm-up: JIT and the thesaurus index
  const single = await concurrentRate(builtin, texts, 1);
  console.log(`builtin, 1 client, 1 text per call          ${rate(single)}`);

  const direct = await concurrentRate(builtin, texts, clients);
  const batched = await concurrentRate(new MicroBatcher(builtin, batch), texts, clients);
  console.log(`builtin, ${clients} clients, direct                 ${rate(direct)}`);
  console.log(
    `builtin, ${clients} clients, micro-batched          ${rate(batched)}   (×${(batched / direct).toFixed(2)} vs direct)`,
  );

  const server = new SimulatedModelServer(builtin, 2, 0.02);
  const serverTexts = texts.slice(0, Math.min(count, 1000));
  const serverDirect = await concurrentRate(server, serverTexts, clients);
  const serverBatched = await concurrentRate(new MicroBatcher(server, batch), serverTexts, clients);
  console.log(`simulated model server, ${clients} clients, direct   ${rate(serverDirect)}`);
  console.log(
    `simulated model server, ${clients} clients, batched  ${rate(serverBatched)}   (×${(serverBatched / serverDirect).toFixed(2)} vs direct)`,
  );

  const cached = new CachedEmbedder(builtin, { lruSize: count });
  const cold = await timeMs(() => cached.embed(texts));
  const warm = await timeMs(() => cached.embed(texts));
  console.log(
    `LRU cache: cold ${rate(count / (cold / 1000))}, warm ${rate(count / (warm / 1000))}   (hit speed-up ×${(cold / warm).toFixed(1)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
