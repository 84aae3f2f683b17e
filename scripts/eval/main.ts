/**
 * npm run eval -- --dataset <path> [--top-k 5,10,25,50] [--json out.json] [--html report.html]
 *                 [--url http://127.0.0.1:8001] [--api-key KEY] [--quiet]
 * npm run eval -- --sessions <dir> [--json out.json] [--html report.html]   (sessions/: hindsight consolidation)
 *
 * The dataset's kind is read from its first JSON document (see kinds.ts): a conversation benchmark
 * (REALTALK or LoCoMo layout, scored as recall@k) or personal facts (hit@1/hit@3/MRR). Without --url
 * a fresh memory-api process is started on a free loopback port (temp DATA_DIR, unique
 * REDIS_PREFIX, no rate limit) and stopped at the end. Exit codes: 0 done, 1 usage, 2 the run failed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnMemoryApi } from '@hindsight/testing';
import { detectEvalKind } from './kinds.ts';
import { DEFAULT_KS, INGEST_MODES, type IngestMode } from './run.ts';
import { formatSessionsTables, renderSessionsHtml } from './sessions/report.ts';
import { runSessionsEval } from './sessions/run.ts';
import { chooseStore, parseStoreName, type StoreName } from './store-choice.ts';

const USAGE = `usage: npm run eval -- --dataset <dir|file.json> [--top-k 5,10,25,50] [--json out.json] [--html report.html]
                      [--url <memory-api url> | --store sqlite|postgres] [--api-key <key>] [--quiet]
                      [--ingest batch|single] [--conversations <regex on conversation ids>]
       npm run eval -- --sessions <dir> [--json out.json] [--html report.html] [--url <memory-api url with a worker>]`;

export async function evalMain(argv: readonly string[]): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.sessions) return sessionsEval(values);
  if (!values.dataset) {
    process.stderr.write(`--dataset or --sessions is required\n${USAGE}\n`);
    return 1;
  }
  const ks = values['top-k'] ? values['top-k'].split(',').map((k) => Number(k.trim())) : [...DEFAULT_KS];
  if (ks.some((k) => !Number.isInteger(k) || k < 1 || k > 100)) {
    process.stderr.write(`--top-k takes integers between 1 and 100, e.g. 5,10,25,50\n`);
    return 1;
  }
  if (values.store !== undefined && values.url !== undefined) {
    process.stderr.write(`--store picks the store of the memory-api the eval starts; with --url it has none\n`);
    return 1;
  }
  const ingest = values.ingest ?? 'batch';
  if (!isIngestMode(ingest)) {
    process.stderr.write(`--ingest takes ${INGEST_MODES.join(' or ')}\n`);
    return 1;
  }
  let conversations: RegExp | undefined;
  try {
    if (values.conversations !== undefined) conversations = new RegExp(values.conversations);
  } catch (error) {
    process.stderr.write(`--conversations: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  let onStore: Awaited<ReturnType<typeof spawnOnStore>> | undefined;
  try {
    const apiKey = values['api-key'] ?? process.env.HINDSIGHT_API_KEY;
    const dataset = resolve(values.dataset);
    const kind = await detectEvalKind(dataset);
    // --store: the eval's memory-api is started here, on that store, and given to the kind by URL.
    if (values.store !== undefined) onStore = await spawnOnStore(parseStoreName(values.store));
    const url = onStore?.service.url ?? values.url;
    const report = await kind.run({
      dataset,
      ks,
      ...(url ? { url } : {}),
      ...(apiKey ? { apiKey } : {}),
      progress: !values.quiet,
      ingest,
      ...(conversations ? { conversations } : {}),
    });
    if (onStore) process.stdout.write(`long-term store: ${onStore.store.description}\n`);
    process.stdout.write(`${report.text}\n`);
    if (values.json) await writeOut(values.json, `${JSON.stringify(report.json, null, 2)}\n`);
    if (values.html) await writeOut(values.html, report.html());
    return 0;
  } catch (error) {
    process.stderr.write(`eval failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  } finally {
    await onStore?.stop();
  }
}

/** A memory-api child process on the chosen store; `stop` ends both. */
async function spawnOnStore(name: StoreName) {
  const store = await chooseStore(name);
  try {
    const service = await spawnMemoryApi({ env: store.env });
    return {
      store,
      service,
      stop: async () => {
        await service.stop();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The sessions fixture through memory-api and the consolidation worker (scripts/eval/sessions/). */
async function sessionsEval(values: ReturnType<typeof parse>['values']): Promise<number> {
  try {
    const apiKey = values['api-key'] ?? process.env.HINDSIGHT_API_KEY;
    const result = await runSessionsEval({
      dir: resolve(values.sessions as string),
      ...(values.url ? { url: values.url } : {}),
      ...(apiKey ? { apiKey } : {}),
      progress: !values.quiet,
    });
    process.stdout.write(`${formatSessionsTables(result)}\n`);
    if (values.json) await writeOut(values.json, `${JSON.stringify(result, null, 2)}\n`);
    if (values.html) await writeOut(values.html, renderSessionsHtml(result));
    return 0;
  } catch (error) {
    process.stderr.write(`eval failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      dataset: { type: 'string', short: 'd' },
      sessions: { type: 'string' },
      'top-k': { type: 'string', short: 'k' },
      json: { type: 'string' },
      html: { type: 'string' },
      url: { type: 'string' },
      store: { type: 'string' },
      ingest: { type: 'string' },
      conversations: { type: 'string' },
      'api-key': { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  });
}

async function writeOut(path: string, text: string): Promise<void> {
  await mkdir(dirname(resolve(path)), { recursive: true });
  await writeFile(path, text);
  process.stderr.write(`wrote ${path}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await evalMain(process.argv.slice(2));
}

function isIngestMode(value: string): value is IngestMode {
  return (INGEST_MODES as readonly string[]).includes(value);
}
