import { ForbiddenError, UnauthorizedError } from '@hindsight/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ApiKeys, bearerKey } from './api-keys.ts';

/** Who may call a route: anyone, any tenant's key, or the admin key. */
export type Access = 'public' | 'tenant' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** Set from the API key; never from the body. */
    tenant: string;
  }
}

/**
 * Resolves the tenant of every request from its API key. Routes declare
 * `config: {access}`; the default is `tenant`. Routes under /admin and /debug
 * need the admin key.
 */
export function registerAuth(app: FastifyInstance, keys: ApiKeys): void {
  app.decorateRequest('tenant', '');
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const access = accessOf(request);
    if (access === 'public') return;
    const key = bearerKey(request.headers) ?? '';
    if (access === 'admin') {
      if (!key && !keys.open)
        throw new UnauthorizedError('this route needs the admin key: "Authorization: Bearer <ADMIN_API_KEY>"');
      if (!keys.isAdmin(key)) throw new ForbiddenError('this route needs the admin key');
      request.tenant = keys.tenantFor(key) ?? '';
      return;
    }
    const tenant = keys.tenantFor(key) ?? delegatedTenant(request, keys, key);
    if (!tenant) throw new UnauthorizedError();
    request.tenant = tenant;
  });
}

/**
 * Service-to-service calls (the consolidation worker writing a job's memories) hold the
 * admin key, not every tenant's: with it, `X-Tenant-Id` names the tenant acted for.
 */
function delegatedTenant(request: FastifyRequest, keys: ApiKeys, key: string): string | undefined {
  const header = request.headers['x-tenant-id'];
  if (typeof header !== 'string' || header.length === 0 || header.length > 128 || !key) return undefined;
  return keys.isAdmin(key) ? header : undefined;
}

function accessOf(request: FastifyRequest): Access {
  const declared = request.routeOptions.config.access;
  if (declared) return declared;
  // The path without its query string: `/ready?verbose=1` is as public as `/ready`.
  const url = request.url.split('?', 1)[0] ?? '';
  if (url.startsWith('/admin') || url.startsWith('/debug')) return 'admin';
  if (url === '/health' || url === '/ready' || url.startsWith('/docs')) return 'public';
  return 'tenant';
}
