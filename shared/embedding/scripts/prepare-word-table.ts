/**
 * Derives the built-in embedder's word table now instead of at first use (image builds, CI):
 *   npx tsx shared/embedding/scripts/prepare-word-table.ts
 * Prints where it is and how big; a table already there is only read.
 */
import { statSync } from 'node:fs';
import { loadWordTable, wordTablePath } from '../src/index.ts';

const started = performance.now();
const table = loadWordTable({ cacheDir: process.env.EMBEDDINGS_WORD_TABLE_DIR || undefined });
const path = wordTablePath({ cacheDir: process.env.EMBEDDINGS_WORD_TABLE_DIR || undefined });
const mb = (statSync(path).size / 2 ** 20).toFixed(1);
console.log(
  `${path}: ${table.size} words × ${table.dimension}, ${mb} MB, ready in ${Math.round(performance.now() - started)} ms`,
);
