import { ForbiddenError, UnauthorizedError } from '@hindsight/errors';
import { bearerKey, KeyTable, readKeyEntries, routeAccess } from '@hindsight/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AgentConfig } from '../config.ts';

/**
 * Who is calling the agent: an application holding an `AGENT_API_KEYS` key (it may chat as any
 * of its users), one user holding an `AGENT_USER_TOKENS` token (only as that user), or, with no
 * keys configured, whoever reaches the loopback address.
 */
export type Caller = { kind: 'application'; name: string } | { kind: 'user'; userId: string } | { kind: 'loopback' };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set from the caller's key by the auth hook (null on public routes); never from the body. */
    caller: Caller | null;
  }
}

const LOOPBACK_CALLER: Caller = { kind: 'loopback' };

/** The agent's caller keys. Without any, the agent is open and must stay on loopback (DESIGN §9). */
export class AgentCallers {
  private readonly table: KeyTable<Caller>;

  constructor(entries: ReadonlyArray<{ key: string; caller: Caller }>) {
    this.table = new KeyTable(entries.map((e) => ({ key: e.key, value: e.caller })));
  }

  static fromConfig(
    config: Pick<AgentConfig, 'AGENT_API_KEYS' | 'AGENT_API_KEYS_FILE' | 'AGENT_USER_TOKENS'>,
  ): AgentCallers {
    const applications = readKeyEntries({
      list: config.AGENT_API_KEYS,
      file: config.AGENT_API_KEYS_FILE,
      variable: 'AGENT_API_KEYS',
    }).map((e) => ({ key: e.key, caller: { kind: 'application', name: e.name } as const }));
    const users = readKeyEntries({ list: config.AGENT_USER_TOKENS, variable: 'AGENT_USER_TOKENS' }).map((e) => ({
      key: e.key,
      caller: { kind: 'user', userId: e.name } as const,
    }));
    return new AgentCallers([...applications, ...users]);
  }

  get open(): boolean {
    return this.table.size === 0;
  }

  callerFor(key: string | undefined): Caller | undefined {
    if (this.open) return LOOPBACK_CALLER;
    return key === undefined ? undefined : this.table.find(key);
  }
}

/** Every route but the public ones (`/health`, `/ready`) needs a caller key, decided on the matched route. */
export function registerCallerAuth(app: FastifyInstance, callers: AgentCallers): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (routeAccess(request) === 'public') return;
    const caller = callers.callerFor(bearerKey(request.headers));
    if (!caller) {
      throw new UnauthorizedError(
        'missing or invalid key: send "Authorization: Bearer <key>" with one of the agent\'s AGENT_API_KEYS or a user token',
      );
    }
    request.caller = caller;
  });
}

/** A user token speaks for its own user only; applications and loopback callers for any. */
export function assertActsFor(caller: Caller | null, userId: string): void {
  if (caller === null) throw new UnauthorizedError();
  if (caller.kind === 'user' && caller.userId !== userId) {
    throw new ForbiddenError('this token belongs to another user: send the user_id it was issued for');
  }
}
