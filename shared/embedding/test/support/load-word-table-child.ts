/** Child process of word-table.test.ts: loads (deriving if needed) a table and prints its digest. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadWordTable, wordTablePath } from '../../src/index.ts';

const [cacheDir, path, version] = process.argv.slice(2) as [string, string, string];
const location = { cacheDir, source: { path, version }, derivation: { vocabulary: 5, removedComponents: 1 } };
const table = loadWordTable(location);
const digest = createHash('sha256')
  .update(readFileSync(wordTablePath(location)))
  .digest('hex');
process.stdout.write(JSON.stringify({ words: table.words, digest }));
