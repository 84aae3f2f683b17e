/**
 * Derives the built-in embedder's word tables now instead of at first use (image builds, CI):
 *   npx tsx shared/embedding/scripts/prepare-word-table.ts
 * Prints where the English one is and how big; tables already there are only read.
 */
import { statSync } from 'node:fs';
import { loadDerivedLexicon, loadWordTable, wordTablePath } from '../src/index.ts';

const started = performance.now();
const location = { cacheDir: process.env.EMBEDDINGS_WORD_TABLE_DIR || undefined };
const table = loadWordTable(location);
const { chinese } = loadDerivedLexicon(table, location);
const path = wordTablePath(location);
const mb = (statSync(path).size / 2 ** 20).toFixed(1);
console.log(
  `${path}: ${table.size} words × ${table.dimension}, ${mb} MB; ${chinese.size} Chinese words; ` +
    `ready in ${Math.round(performance.now() - started)} ms`,
);
