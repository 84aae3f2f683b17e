import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { apiErrorFrom } from '@hindsight/memory-client';
import type { ImportSummary } from '@hindsight/memory-model';
import { type CommandContext, EXIT, UsageError } from '../context.ts';
import { createProgress } from '../progress.ts';
import { FILTER_OPTIONS, type FilterValues, filterQuery } from './filters.ts';

export const EXPORT_OPTIONS = {
  out: { type: 'string', short: 'o' },
  ...FILTER_OPTIONS,
} as const;

/** Streams `GET /v1/export` to a file or stdout, counting records on stderr. */
export async function exportCommand(ctx: CommandContext, values: FilterValues & { out?: string }): Promise<number> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filterQuery(values))) if (value !== undefined) params.set(key, value);
  const response = await fetch(`${ctx.url}/v1/export${params.size > 0 ? `?${params}` : ''}`, {
    headers: ctx.headers(),
  });
  if (!response.ok || !response.body) throw await apiErrorFrom(response, 'GET /v1/export');

  const toStdout = values.out === undefined || values.out === '-';
  const progress = createProgress({ label: 'export', unit: 'records', enabled: !ctx.quiet && !(toStdout && ctx.json) });
  let records = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let lines = 0;
      for (const byte of chunk) if (byte === 10) lines++;
      records += lines;
      progress.tick(lines);
      done(null, chunk);
    },
  });
  const destination: Writable = toStdout ? (ctx.io.stdout as Writable) : createWriteStream(values.out as string);
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), counter, destination, {
    end: !toStdout,
  });
  progress.done();
  if (!toStdout) {
    if (ctx.json) ctx.outJson({ records, file: values.out });
    else ctx.out(`exported ${records} memories to ${values.out}`);
  } else {
    ctx.note(`exported ${records} memories`);
  }
  return EXIT.ok;
}

/**
 * Streams an NDJSON file (or stdin with "-") into `POST /v1/import`. The server commits it chunk by
 * chunk and skips ids it already has, so running the same command again after an interruption
 * resumes where it stopped.
 */
export async function importCommand(ctx: CommandContext, positionals: string[]): Promise<number> {
  const [source, ...rest] = positionals;
  if (!source || rest.length > 0)
    throw new UsageError('import takes one NDJSON file (or "-" for stdin): hindsight import memories.ndjson');
  const fromStdin = source === '-';
  const total = fromStdin
    ? undefined
    : (
        await stat(source).catch(() => {
          throw new UsageError(`cannot read ${source}`);
        })
      ).size;
  const input: Readable = fromStdin ? (ctx.io.stdin as Readable) : createReadStream(source);
  const progress = createProgress({
    label: 'import',
    unit: 'bytes',
    enabled: !ctx.quiet,
    ...(total !== undefined ? { total } : {}),
  });
  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      progress.set(sent);
      done(null, chunk);
    },
  });
  input.on('error', (error) => counter.destroy(error));
  const body = Readable.toWeb(input.pipe(counter)) as unknown as ReadableStream<Uint8Array>;
  const response = await fetch(`${ctx.url}/v1/import`, {
    method: 'POST',
    headers: ctx.headers({ 'content-type': 'application/x-ndjson' }),
    body,
    duplex: 'half',
  } as RequestInit);
  if (!response.ok) {
    progress.done();
    throw await apiErrorFrom(response, 'POST /v1/import');
  }
  const summary = (await response.json()) as ImportSummary;
  progress.done();
  if (ctx.json) ctx.outJson(summary);
  else {
    ctx.out(
      `imported ${summary.imported} of ${summary.lines} records` +
        (summary.skipped ? `, ${summary.skipped} already present (skipped)` : '') +
        (summary.duplicates ? `, ${summary.duplicates} duplicates of existing content (skipped)` : '') +
        (summary.quarantined ? `, ${summary.quarantined} held back by the poisoning guard (quarantined)` : ''),
    );
  }
  return EXIT.ok;
}
