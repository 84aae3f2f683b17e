import { NotFoundError } from '@hindsight/errors';
import {
  AppendTurnsBody,
  AppendTurnsResponse,
  EndSessionBody,
  EndSessionResponse,
  Identifier,
  SessionTurns,
} from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Sessions } from '../working/sessions.ts';
import { ErrorResponses, IdParams } from './schemas.ts';

const TurnsQuery = z
  .object({
    /** Only turns up to this sequence number (what one consolidation covers). */
    through: z.coerce.number().int().min(1).optional(),
    /** When given, a session of another user answers 404. */
    user_id: Identifier.optional(),
  })
  .strict();

const DeleteQuery = z
  .object({
    /** Clear only the turns up to this sequence number and keep the session (after consolidation). */
    through: z.coerce.number().int().min(1).optional(),
  })
  .strict();

const DeleteReply = z.object({
  session_id: z.string(),
  deleted: z.boolean(),
  removed_turns: z.number().int().optional(),
  jobs: z.number().int().optional(),
});

/** Working memory of a session: turns in, turns out, clear, end (→ hindsight consolidation). */
export function sessionRoutes(sessions: Sessions): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/sessions/:id/turns',
      {
        schema: {
          tags: ['sessions'],
          summary: 'Append a turn (or `{turns: [...]}`) to the session’s working memory',
          params: IdParams,
          body: AppendTurnsBody,
          response: { 201: AppendTurnsResponse, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        reply.status(201);
        return sessions.appendTurns(request.tenant, request.params.id, request.body.turns);
      },
    );

    app.get(
      '/v1/sessions/:id/turns',
      {
        schema: {
          tags: ['sessions'],
          summary: 'The session’s working memory, oldest turn first',
          params: IdParams,
          querystring: TurnsQuery,
          response: { 200: SessionTurns, ...ErrorResponses },
        },
      },
      async (request) => {
        const view = await sessions.turns(request.tenant, request.params.id, request.query.through);
        if (request.query.user_id !== undefined && view.user_id !== null && view.user_id !== request.query.user_id) {
          throw new NotFoundError('session', request.params.id);
        }
        return view;
      },
    );

    app.delete(
      '/v1/sessions/:id',
      {
        schema: {
          tags: ['sessions'],
          summary: 'Forget the session’s working memory (or, with `through`, only its consolidated turns)',
          params: IdParams,
          querystring: DeleteQuery,
          response: { 200: DeleteReply, ...ErrorResponses },
        },
      },
      async (request) => {
        const { id } = request.params;
        if (request.query.through !== undefined) {
          const removed = await sessions.clearThrough(request.tenant, id, request.query.through);
          return { session_id: id, deleted: removed > 0, removed_turns: removed };
        }
        const outcome = await sessions.delete(request.tenant, id);
        return { session_id: id, deleted: outcome.deleted, jobs: outcome.jobs };
      },
    );

    app.post(
      '/v1/sessions/:id/end',
      {
        schema: {
          tags: ['sessions'],
          summary: 'End the session: enqueue its hindsight consolidation (ending twice consolidates once)',
          params: IdParams,
          body: EndSessionBody,
          response: { 202: EndSessionResponse, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        reply.status(202);
        return sessions.end(request.tenant, request.params.id, request.body.user_id);
      },
    );
  };
}
