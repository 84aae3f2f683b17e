import { ForbiddenError, UnauthorizedError } from '@hindsight/errors';
import { bearerKey, routeAccess } from '@hindsight/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeys } from './api-keys.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set from the API key; never from the body. */
    tenant: string;
    /**
     * The caller holds the admin key (a service such as the worker acting for a tenant, or an open
     * deployment): it may write what only services write (consolidation provenance, trusted imports).
     */
    trusted: boolean;
  }
}

/**
 * Resolves the tenant of every request from its API key. Access is decided on the route the
 * router matched (`routeAccess`): its declared `config: {access}`, else admin for route patterns
 * under /admin and /debug, else a tenant key.
 */
export function registerAuth(app: FastifyInstance, keys: ApiKeys): void {
  app.decorateRequest('tenant', '');
  app.decorateRequest('trusted', false);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const access = routeAccess(request);
    if (access === 'public') return;
    const key = bearerKey(request.headers) ?? '';
    if (access === 'admin') {
      if (!key && !keys.open)
        throw new UnauthorizedError('this route needs the admin key: "Authorization: Bearer <ADMIN_API_KEY>"');
      if (!keys.isAdmin(key)) throw new ForbiddenError('this route needs the admin key');
      request.tenant = keys.tenantFor(key) ?? '';
      request.trusted = true;
      return;
    }
    const tenant = keys.tenantFor(key) ?? delegatedTenant(request, keys, key);
    if (!tenant) throw new UnauthorizedError();
    request.tenant = tenant;
    request.trusted = keys.isAdmin(key);
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
