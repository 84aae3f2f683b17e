/**
 * Typed errors shared by every service. Each carries a stable machine code and
 * the HTTP status it maps to; the transports (Fastify error handler, MCP tool
 * wrapper, BullMQ processor) translate them in one place each.
 */
export type ErrorDetails = Record<string, unknown> | unknown[];

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: ErrorDetails;

  constructor(code: string, status: number, message: string, details?: ErrorDetails, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    if (details !== undefined) this.details = details;
  }

  /** True for errors whose message is safe to show to a caller (4xx). */
  get isClientError(): boolean {
    return this.status < 500;
  }
}

/** The request is well-formed JSON but breaks a rule of the memory model (limits, enums, ranges). */
export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('validation_failed', 422, message, details);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('bad_request', 400, message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'missing or invalid API key: send "Authorization: Bearer <key>"') {
    super('unauthorized', 401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', 403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, id: string) {
    super('not_found', 404, `${what} ${id} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('conflict', 409, message, details);
  }
}

/**
 * A decision kept meeting concurrent changes of what it was decided on, even after deciding again:
 * nothing was written, and the same request may simply be sent again.
 */
export class WriteConflictError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('write_conflict', 409, message, details);
  }
}

/** Too many writers for the same owner at once: nothing was written; retry after a short pause. */
export class BusyError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('busy', 503, message, details);
  }
}

/** Content rejected by the memory-poisoning guard (instructions, secrets, raw dumps). */
export class RejectedContentError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('content_rejected', 422, message, details);
  }
}

/** A job's write for a user erased after the job was enqueued (DESIGN §9): nothing of it is written. */
export class UserErasedError extends AppError {
  constructor(userId: string) {
    super(
      'user_erased',
      410,
      `user ${userId.slice(0, 128)} was erased after this job was enqueued: the job may not write for them`,
    );
  }
}

export class RateLimitedError extends AppError {
  constructor(message = 'rate limit exceeded, retry later') {
    super('rate_limited', 429, message);
  }
}

/** A dependency (embedder, store, Redis) is down; the caller may retry later. */
export class DependencyUnavailableError extends AppError {
  constructor(dependency: string, message: string, options?: ErrorOptions) {
    super('dependency_unavailable', 503, `${dependency} unavailable: ${message}`, { dependency }, options);
  }
}

/** A stored index was built with another embedding model/dimension than configured. */
export class EmbeddingMismatchError extends AppError {
  constructor(message: string) {
    super('embedding_mismatch', 500, message);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The body every transport sends for an error: `{error: {code, message, details?}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetails };
}

export function toErrorBody(error: AppError): ErrorBody {
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.details !== undefined) body.error.details = error.details;
  return body;
}

type WithCause = { cause?: { code?: string; message?: string } };

/** An error's message with its cause's code when it has one: `fetch failed (ECONNREFUSED)`. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as WithCause).cause?.code;
  return code ? `${error.message} (${code})` : error.message;
}

/** Why a network call failed, most specific first: the cause's code, the cause's message, the message. */
export function networkCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as WithCause).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
