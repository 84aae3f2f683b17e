import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ChatReply, ChatRequest, EndSessionReply, EndSessionRequest } from '../conversation/contract.ts';
import type { Conversation } from '../conversation/conversation.ts';
import { assertActsFor } from '../http/callers.ts';

export function chatRoutes(conversation: Conversation): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/chat', { schema: { body: ChatRequest, response: { 200: ChatReply } } }, async (request) => {
      assertActsFor(request.caller, request.body.user_id);
      return conversation.chat(request.body);
    });

    app.post(
      '/sessions/:id/end',
      {
        schema: {
          params: z.object({ id: z.string().trim().min(1).max(128) }),
          body: EndSessionRequest,
          response: { 202: EndSessionReply },
        },
      },
      async (request, reply) => {
        assertActsFor(request.caller, request.body.user_id);
        const ended = await conversation.endSession(request.params.id, request.body.user_id);
        reply.status(202);
        return { session_id: request.params.id, ...ended };
      },
    );
  };
}
