import type { FastifyRequest } from 'fastify';

/** Who may call a route: anyone, any caller key, or the admin key. */
export type Access = 'public' | 'tenant' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Declared on the route; read by the auth hook from the route the router matched. */
    access?: Access;
  }
}

/** Route patterns under these prefixes need the admin key even when they declare nothing. */
const ADMIN_PREFIXES = ['/admin', '/debug'];

/**
 * The access a request needs, decided on the route the router matched — its declared
 * `config.access`, else its registered pattern — never on the raw URL, which a client can
 * spell as `/%61dmin`, `//admin` or `/ADMIN` while the router still finds the admin route.
 * A request no route matched needs a caller key (its 404 is not public).
 */
export function routeAccess(request: FastifyRequest): Access {
  const declared = request.routeOptions.config?.access;
  if (declared) return declared;
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return 'tenant';
  const lower = pattern.toLowerCase();
  if (ADMIN_PREFIXES.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`))) return 'admin';
  return 'tenant';
}
