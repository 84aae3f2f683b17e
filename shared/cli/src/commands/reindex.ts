import { DependencyUnavailableError, describeError } from '@hindsight/errors';
import {
  ConfigError,
  NoStoreError,
  type ReindexSummary,
  reindexFromEnvironment,
  StoreInUseError,
  sameSpace,
} from '@hindsight/memory-api/reindex';
import { type CommandContext, EXIT, parseInteger } from '../context.ts';
import { createProgress, type Progress } from '../progress.ts';

export const REINDEX_OPTIONS = { 'batch-size': { type: 'string' } } as const;

const DEFAULT_BATCH_SIZE = 128;
const MAX_BATCH_SIZE = 4096;
const STORE_SETTINGS = 'VECTOR_STORE and DATA_DIR / DATABASE_URL (+ DATABASE_SCHEMA) / QDRANT_URL';

const space = ({ model, dimension }: { model: string; dimension: number }) => `"${model}" (dimension ${dimension})`;

/**
 * `hindsight reindex`: re-embeds every memory of the store memory-api's environment names with the
 * embedder it names, in place, then switches the store (see memory-api's maintenance/reindex.ts).
 * It opens the store itself, in this process, so memory-api must be stopped.
 */
export async function reindexCommand(ctx: CommandContext, values: { 'batch-size'?: string }): Promise<number> {
  const batchSize = values['batch-size'] ? parseInteger(values['batch-size'], '--batch-size') : DEFAULT_BATCH_SIZE;
  if (batchSize > MAX_BATCH_SIZE) {
    ctx.io.stderr.write(`--batch-size takes at most ${MAX_BATCH_SIZE}, got ${batchSize}\n`);
    return EXIT.usage;
  }
  let bar: Progress | undefined;
  let summary: ReindexSummary;
  try {
    summary = await reindexFromEnvironment({
      env: ctx.io.env,
      batchSize,
      progress: {
        started(status) {
          if (status.discarded) ctx.note(`discarded an unfinished re-index into ${space(status.discarded)}`);
          if (sameSpace(status.current, status.target)) return;
          ctx.note(
            `re-indexing ${status.total} memories from ${space(status.current)} to ${space(status.target)}` +
              (status.resumed ? `, continuing an interrupted run (${status.done} already done)` : ''),
          );
          bar = createProgress({
            label: 'reindex',
            total: status.total,
            unit: 'memories',
            stream: ctx.io.stderr,
            enabled: !ctx.quiet && !ctx.json,
          });
          bar.set(status.done);
        },
        advanced(count) {
          bar?.tick(count);
        },
      },
    });
  } catch (error) {
    return reportReindexFailure(ctx, error);
  }
  bar?.done();
  if (ctx.json) {
    ctx.outJson(summary);
    return EXIT.ok;
  }
  if (summary.outcome === 'unchanged') {
    ctx.out(
      `the store already uses ${space(summary.to)}: nothing to re-index (${summary.total} memories left as they are)`,
    );
    return EXIT.ok;
  }
  const resumed = summary.resumedAt > 0 ? `, continuing an interrupted run at ${summary.resumedAt}` : '';
  ctx.out(
    `re-indexed ${summary.total} memories from ${space(summary.from)} to ${space(summary.to)} in ` +
      `${(summary.tookMs / 1000).toFixed(1)} s (${summary.reembedded} embedded by this run${resumed}); ` +
      'start memory-api with the same settings',
  );
  return EXIT.ok;
}

function reportReindexFailure(ctx: CommandContext, error: unknown): number {
  if (error instanceof ConfigError) {
    ctx.io.stderr.write(`${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof NoStoreError) {
    ctx.io.stderr.write(`${error.message}: nothing to re-index (check ${STORE_SETTINGS}); nothing was created\n`);
    return EXIT.notFound;
  }
  if (error instanceof StoreInUseError) {
    ctx.io.stderr.write(`${error.message}\n`);
    return EXIT.api;
  }
  if (error instanceof DependencyUnavailableError) {
    ctx.io.stderr.write(`cannot reach the embedder: ${describeError(error)} (EMBEDDER_URL or EMBEDDINGS_BASE_URL)\n`);
    return EXIT.unreachable;
  }
  ctx.io.stderr.write(
    `hindsight reindex: ${describeError(error)}\nthe memories re-embedded so far are kept: run it again to continue\n`,
  );
  return EXIT.api;
}
