import {
  EraseUserResponse,
  ErasureList,
  ErasureListQuery,
  PutUserSummaryBody,
  UserList,
  UserListQuery,
  UserSessions,
  UserSummary,
} from '@hindsight/memory-model';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { UserService } from '../users/service.ts';
import { ErrorResponses, IdParams } from './schemas.ts';

export function userRoutes(users: UserService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/users',
      {
        schema: {
          tags: ['users'],
          summary:
            'The tenant’s users that have long-term memories, most recently active first: active memories per ' +
            'layer (working = turns held in open sessions), every memory per layer and status, last activity',
          querystring: UserListQuery,
          response: { 200: UserList, ...ErrorResponses },
        },
      },
      async (request) => users.list(request.tenant, request.query),
    );

    app.get(
      '/v1/users/:id/sessions',
      {
        schema: {
          tags: ['users'],
          summary: 'The user’s sessions that still hold working memory, most recently written first',
          params: IdParams,
          response: { 200: UserSessions, ...ErrorResponses },
        },
      },
      async (request) => users.sessions(request.tenant, request.params.id),
    );

    app.get(
      '/v1/users/:id/summary',
      {
        schema: {
          tags: ['users'],
          summary: 'The user’s profile summary (what an agent loads first); null until one was made',
          params: IdParams,
          response: { 200: UserSummary, ...ErrorResponses },
        },
      },
      async (request) => users.summary(request.tenant, request.params.id),
    );

    app.put(
      '/v1/users/:id/summary',
      {
        schema: {
          tags: ['users'],
          summary: 'Replace the user’s profile summary (the worker’s summarize job); the old text stays in history',
          params: IdParams,
          body: PutUserSummaryBody,
          response: { 200: UserSummary, ...ErrorResponses },
        },
      },
      async (request) =>
        users.saveSummary(request.tenant, request.params.id, request.body, { trusted: request.trusted }),
    );

    app.delete(
      '/v1/users/:id',
      {
        schema: {
          tags: ['users'],
          summary:
            'Erase everything of one user (memories of every layer, working memory, jobs and their events, cached ' +
            'replies and vectors) and answer the receipt, which is also kept as a tombstone (GET /v1/erasures)',
          params: IdParams,
          response: { 200: EraseUserResponse, ...ErrorResponses },
        },
      },
      async (request) => users.erase(request.tenant, request.params.id),
    );

    app.get(
      '/v1/erasures',
      {
        schema: {
          tags: ['users'],
          summary: 'The tenant’s erasure tombstones, newest first: who was erased when, what went where (no content)',
          querystring: ErasureListQuery,
          response: { 200: ErasureList, ...ErrorResponses },
        },
      },
      async (request) => users.erasures(request.tenant, request.query),
    );
  };
}
