import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

/** The console's browser sources (services/memory-api/console). */
export const CONSOLE_SOURCES = fileURLToPath(new URL('../../console/', import.meta.url));

export interface ConsoleAsset {
  body: string;
  contentType: string;
  etag: string;
}

export interface ConsoleAssets {
  page: ConsoleAsset;
  script: ConsoleAsset;
  style: ConsoleAsset;
}

/**
 * Bundles the console from its sources with esbuild, in memory (nothing is written, so a fresh
 * clone or a read-only image serves it with no build step). Offline: every import is a local
 * file or a package in node_modules.
 */
export async function bundleConsole(): Promise<ConsoleAssets> {
  const [bundle, css] = await Promise.all([
    build({
      entryPoints: [`${CONSOLE_SOURCES}src/main.ts`],
      bundle: true,
      format: 'esm',
      target: 'es2022',
      minify: true,
      write: false,
      legalComments: 'none',
      logLevel: 'silent',
    }),
    readFile(`${CONSOLE_SOURCES}style.css`, 'utf8').then((text) => transform(text, { loader: 'css', minify: true })),
  ]);
  const [output] = bundle.outputFiles;
  if (!output) throw new Error('esbuild produced no console bundle');
  const script = asset(output.text, 'text/javascript; charset=utf-8');
  const style = asset(css.code, 'text/css; charset=utf-8');
  return { page: asset(pageHtml(script.etag, style.etag), 'text/html; charset=utf-8'), script, style };
}

/** Builds once, on first use; a failed build is tried again on the next request. */
export function consoleAssetsOnce(): () => Promise<ConsoleAssets> {
  let pending: Promise<ConsoleAssets> | undefined;
  return () => {
    pending ??= bundleConsole().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

function asset(body: string, contentType: string): ConsoleAsset {
  return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** The one page; asset URLs carry their hash, so a new bundle is never mixed with an old one. */
function pageHtml(scriptTag: string, styleTag: string): string {
  const version = (etag: string) => encodeURIComponent(etag.replaceAll('"', ''));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hindsight console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="console.css?v=${version(styleTag)}">
</head>
<body>
<div id="console"></div>
<noscript>The hindsight console needs JavaScript.</noscript>
<script type="module" src="console.js?v=${version(scriptTag)}"></script>
</body>
</html>
`;
}
