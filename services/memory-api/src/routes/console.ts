import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type ConsoleAsset, type ConsoleAssets, consoleAssetsOnce } from '../console/assets.ts';

/**
 * The console page and its bundle hold no data and no key, so they are public: a browser
 * navigating to /console cannot send a bearer key, and the page must load to ask for one.
 * Every memory it shows comes from the REST API, which needs the key as always.
 */
const PUBLIC = { access: 'public' } as const;

/** Same-origin only, no inline script or style, no framing: the key typed here goes nowhere else. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function consoleRoutes(): FastifyPluginAsync {
  const assets = consoleAssetsOnce();
  return async (app) => {
    const serve = (pick: (a: ConsoleAssets) => ConsoleAsset) => async (request: FastifyRequest, reply: FastifyReply) =>
      send(request, reply, pick(await assets()));
    const hidden = { hide: true };
    app.get('/console', { config: PUBLIC, schema: hidden }, async (_request, reply) =>
      reply.redirect('/console/', 308),
    );
    app.get(
      '/console/',
      { config: PUBLIC, schema: hidden },
      serve((a) => a.page),
    );
    app.get(
      '/console/console.js',
      { config: PUBLIC, schema: hidden },
      serve((a) => a.script),
    );
    app.get(
      '/console/console.css',
      { config: PUBLIC, schema: hidden },
      serve((a) => a.style),
    );
  };
}

function send(request: FastifyRequest, reply: FastifyReply, asset: ConsoleAsset) {
  reply
    .header('content-type', asset.contentType)
    .header('etag', asset.etag)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', CONTENT_SECURITY_POLICY);
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  return reply.send(asset.body);
}
