import { bearerKey } from '@hindsight/http';
import { CallerIdentity } from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiKeys } from '../http/api-keys.ts';
import { ErrorResponses } from './schemas.ts';

/** Which tenant a key acts for: how a client (the agent at start) checks its key before it serves anyone. */
export function whoamiRoutes(keys: ApiKeys): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/whoami',
      {
        schema: {
          tags: ['operations'],
          summary: 'The tenant this key acts for, and whether it is the admin key',
          response: { 200: CallerIdentity, ...ErrorResponses },
        },
      },
      async (request) => ({ tenant: request.tenant, admin: keys.isAdmin(bearerKey(request.headers) ?? '') }),
    );
  };
}
