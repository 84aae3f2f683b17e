import { createHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** The read worker's sources (read-worker.ts and what it imports). */
const WORKER_SOURCE = fileURLToPath(new URL('./read-worker.ts', import.meta.url));

/** Packages with native code or files of their own: imported from node_modules as they are, by absolute URL. */
const NATIVE_PACKAGES = ['better-sqlite3', 'sqlite-vec'];

/**
 * The read worker as one ES module, bundled from its sources by esbuild and written to the
 * system's temp directory under its content's hash (the same sources give the same file, so
 * processes and restarts share it; a stack trace names a file). Run through tsx, each worker registered tsx's loader, which runs on a thread of
 * its own, and loaded every module its imports reach (the embedding package's OpenAI client, zod):
 * ~50 MiB of RSS per worker (100,000 memories over 100 users, two read workers and the access
 * worker: memory-api 452 → 353 MiB). Bundled, a worker holds one isolate and only the code it runs.
 * Built once per process; a failed build is tried again by the next pool.
 */
export function readWorkerModule(): Promise<URL> {
  built ??= bundle().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

let built: Promise<URL> | undefined;

async function bundle(): Promise<URL> {
  const result = await build({
    entryPoints: [WORKER_SOURCE],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [nativePackagesByUrl()],
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild produced no read worker module');
  const hash = createHash('sha256').update(output.contents).digest('hex').slice(0, 16);
  const path = join(tmpdir(), `hindsight-read-worker-${hash}.mjs`);
  // Written whole under another name, then renamed: a worker starting meanwhile never reads half a file.
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, output.contents);
  await rename(partial, path);
  return pathToFileURL(path);
}

/**
 * The module lives outside node_modules' reach: the native packages are imported by the file URL
 * Node resolves them to from here.
 */
function nativePackagesByUrl(): Plugin {
  const require = createRequire(import.meta.url);
  const filter = new RegExp(`^(${NATIVE_PACKAGES.join('|')})$`);
  return {
    name: 'native-packages-by-url',
    setup(esbuild) {
      esbuild.onResolve({ filter }, ({ path }) => ({
        path: pathToFileURL(require.resolve(path)).href,
        external: true,
      }));
    },
  };
}
