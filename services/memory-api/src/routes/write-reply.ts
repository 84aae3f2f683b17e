import { BadRequestError } from '@hindsight/errors';
import type { WriteResult } from '@hindsight/memory-model';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A write's reply as it is replayed for a retry with the same `Idempotency-Key`. */
export interface StoredReply {
  statusCode: number;
  body: unknown;
}

/**
 * The port behind `Idempotency-Key`: `run` computes the reply once per (tenant, key) and hands
 * retries and concurrent twins that first reply (adapters/redis/idempotency.ts, shared by replicas).
 */
export interface Idempotency {
  run(tenant: string, key: string, body: unknown, compute: () => Promise<StoredReply>): Promise<StoredReply>;
}

/** 201 when the write inserted a row, 200 when it confirmed or refined an existing one. */
export function writeStatusCode(result: WriteResult): number {
  return result.status === 'duplicate' || result.status === 'merged' ? 200 : 201;
}

/** Runs a write once per `Idempotency-Key`; retries get the first reply. */
export async function idempotent<T>(
  idempotency: Idempotency,
  request: FastifyRequest,
  reply: FastifyReply,
  compute: () => Promise<{ statusCode: number; body: T }>,
): Promise<T> {
  const header = request.headers['idempotency-key'];
  let outcome: StoredReply;
  if (header === undefined) {
    outcome = await compute();
  } else {
    if (typeof header !== 'string' || header.length === 0 || header.length > 255) {
      throw new BadRequestError('Idempotency-Key must be 1–255 characters');
    }
    outcome = await idempotency.run(request.tenant, header, request.body, compute);
  }
  reply.status(outcome.statusCode);
  return outcome.body as T;
}
