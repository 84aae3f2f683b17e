import { Identifier } from '@hindsight/memory-model';
import { z } from 'zod';

export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

/** Error replies every route may give, for the OpenAPI document. */
export const ErrorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  422: ErrorBody,
  503: ErrorBody,
} as const;

export const IdParams = z.object({ id: Identifier });
