import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '@hindsight/errors';
import { ImportSummary, ListQuery } from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { MemoryService } from '../memory/service.ts';
import type { NumberedLine } from '../memory/transfer.ts';
import { ErrorResponses } from './schemas.ts';

export const NDJSON_TYPES = ['application/x-ndjson', 'application/jsonl'] as const;

/** A single record line is at most a few KiB (content ≤ 2000 chars, metadata ≤ 8 KiB, history). */
const MAX_LINE_BYTES = 1024 * 1024;

const ExportQuery = ListQuery.omit({ limit: true, cursor: true });

export interface TransferHooks {
  /** Largest import body (IMPORT_MAX_BYTES): 413 past it, before reading when the length is announced. */
  maxImportBytes: number;
  /** After each committed import chunk (metrics). */
  onImported?: (inserted: number) => void;
}

/**
 * `GET /v1/export` streams the caller's long-term records as NDJSON; `POST /v1/import` reads
 * such a stream back. The NDJSON body parser hands the raw stream to the import route only, so
 * an import of any size is read line by line instead of buffered under the JSON body limit.
 */
export function transferRoutes(memory: MemoryService, hooks: TransferHooks): FastifyPluginAsyncZod {
  return async (app) => {
    app.addContentTypeParser([...NDJSON_TYPES], (_request, payload, done) => done(null, payload));

    app.get(
      '/v1/export',
      {
        schema: {
          tags: ['memories'],
          summary: 'Export long-term memories (all statuses unless filtered) as NDJSON, one full record per line',
          querystring: ExportQuery,
          produces: ['application/x-ndjson'],
        },
      },
      async (request, reply) => {
        const records = memory.export(request.tenant, request.query);
        const body = Readable.from(toNdjson(records));
        body.on('error', (error) => request.log.error({ err: error }, 'export stream failed'));
        reply.type('application/x-ndjson; charset=utf-8');
        return reply.send(body);
      },
    );

    app.post(
      '/v1/import',
      {
        schema: {
          tags: ['memories'],
          summary:
            'Import NDJSON records (from /v1/export): ids, layers, metadata, history, status and times kept, content re-embedded; ids already present are skipped, so a re-run resumes',
          consumes: [...NDJSON_TYPES],
          response: { 200: ImportSummary, 413: ErrorResponses[422], 415: ErrorResponses[422], ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (!isReadable(body)) {
          throw new AppError(
            'unsupported_media_type',
            415,
            `send the records as ${NDJSON_TYPES[0]}, one JSON record per line`,
          );
        }
        // Refused before its end, the rest of the body would still be on the connection: close it after the answer.
        const tooLarge = () => {
          reply.header('connection', 'close');
          return importTooLarge(hooks.maxImportBytes);
        };
        if (Number(request.headers['content-length'] ?? 0) > hooks.maxImportBytes) throw tooLarge();
        return memory.import(request.tenant, ndjsonLines(body, hooks.maxImportBytes, tooLarge), {
          trusted: request.trusted,
          ...(hooks.onImported ? { onCommitted: hooks.onImported } : {}),
        });
      },
    );
  };
}

async function* toNdjson(records: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const record of records) yield `${JSON.stringify(record)}\n`;
}

function importTooLarge(maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    413,
    `an import is at most ${maxBytes} bytes (IMPORT_MAX_BYTES); split the file, each part resumes where the last stopped`,
  );
}

/**
 * Splits a byte stream into numbered lines without holding more than one partial line, and
 * refuses (413) a stream longer than `maxBytes` as soon as it passes that: the chunks committed
 * until then stay, and a re-run of the rest resumes after them.
 */
export async function* ndjsonLines(
  stream: AsyncIterable<Buffer | string>,
  maxBytes = Number.POSITIVE_INFINITY,
  tooLarge = () => importTooLarge(maxBytes),
): AsyncGenerator<NumberedLine> {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let line = 0;
  let read = 0;
  for await (const chunk of stream) {
    read += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (read > maxBytes) throw tooLarge();
    const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      line += 1;
      yield { line, text: text.slice(start, newline) };
      start = newline + 1;
    }
    partial = text.slice(start);
    if (partial.length > MAX_LINE_BYTES) {
      throw new AppError('payload_too_large', 413, `line ${line + 1} is longer than ${MAX_LINE_BYTES} bytes`);
    }
  }
  partial += decoder.end();
  if (partial !== '') yield { line: line + 1, text: partial };
}

function isReadable(value: unknown): value is AsyncIterable<Buffer> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
