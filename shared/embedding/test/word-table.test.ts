import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWordTable, WordTable, wordTablePath } from '../src/index.ts';
import { writeWordVectorSource } from './support/word-vector-source.ts';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./support/load-word-table-child.ts', import.meta.url));
const derivation = { vocabulary: 5, removedComponents: 1 };

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hindsight-word-table-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function loadInChild(cacheDir: string, source: { path: string; version: string }) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', child, cacheDir, source.path, source.version]);
  return JSON.parse(stdout) as { words: string[]; digest: string };
}

describe('WordTable file format', () => {
  it('round-trips words and int8 vectors within quantisation error', () => {
    const vectors = Float32Array.from([0.5, -1, 0.25, 0, 0, 0, 3, 2, -3]);
    const table = WordTable.decode(
      WordTable.encode({ words: ['a', 'bé', 'c'], dimension: 3, corpusWords: 10, vectors }),
    );
    expect(table.words).toEqual(['a', 'bé', 'c']);
    expect(table.rank('bé')).toBe(1);
    expect(table.rank('zzz')).toBeUndefined();
    expect(table.corpusWords).toBe(10);
    for (const [rank, expected] of [
      [0, [0.5, -1, 0.25]],
      [1, [0, 0, 0]],
      [2, [3, 2, -3]],
    ] as const) {
      const into = new Float32Array(3);
      table.addTo(into, rank, 2);
      expect(Array.from(into).map((x) => Math.round(x * 10) / 10)).toEqual(expected.map((x) => 2 * x));
    }
  });

  it('refuses a truncated file, a foreign file and a header that does not match the size', () => {
    const bytes = WordTable.encode({ words: ['a'], dimension: 2, corpusWords: 1, vectors: Float32Array.from([1, 2]) });
    expect(() => WordTable.decode(bytes.subarray(0, 10))).toThrow(/truncated/);
    expect(() => WordTable.decode(new TextEncoder().encode('{"not":"a table at all, just json"}'))).toThrow(
      /bad magic/,
    );
    expect(() => WordTable.decode(bytes.subarray(0, bytes.length - 1))).toThrow(/header says/);
  });
});

describe('deriving the word table from the npm layout', () => {
  it('keeps the most frequent plain words in rank order and drops punctuation, capitals and digits', () => {
    const source = writeWordVectorSource(tempDir());
    const table = loadWordTable({ cacheDir: tempDir(), source, derivation });
    // Source order: the , cat dog Paris 1990 pet " kitten …: five plain words, by rank.
    expect(table.words).toEqual(['the', 'cat', 'dog', 'pet', 'kitten']);
    expect(table.corpusWords).toBe(source.words.length);
    expect(table.dimension).toBe(8);
  });

  it('derives the same bytes in separate processes, and two first uses at once leave one table and no lock', async () => {
    const source = writeWordVectorSource(tempDir());
    const [a, b] = await Promise.all([loadInChild(tempDir(), source), loadInChild(tempDir(), source)]);
    expect(a.digest).toBe(b.digest);

    const shared = tempDir();
    const both = await Promise.all([loadInChild(shared, source), loadInChild(shared, source)]);
    expect(both[0]).toEqual(both[1]);
    expect(both[0].digest).toBe(a.digest);
    expect(readdirSync(shared)).toEqual([wordTablePath({ cacheDir: shared, source, derivation }).split('/').pop()]);
  });

  it('waits while another process holds the lock, and takes over a stale lock left by a dead one', async () => {
    const source = writeWordVectorSource(tempDir());
    const cacheDir = tempDir();
    const path = wordTablePath({ cacheDir, source, derivation });
    writeFileSync(`${path}.lock`, '');
    let finished = false;
    const waiting = loadInChild(cacheDir, source).then((result) => {
      finished = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(finished).toBe(false);
    expect(existsSync(path)).toBe(false);
    rmSync(`${path}.lock`);
    expect((await waiting).words).toHaveLength(5);

    const staleDir = tempDir();
    const stalePath = wordTablePath({ cacheDir: staleDir, source, derivation });
    writeFileSync(`${stalePath}.lock`, '');
    const longAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(`${stalePath}.lock`, longAgo, longAgo);
    expect((await loadInChild(staleDir, source)).words).toHaveLength(5);
    expect(existsSync(`${stalePath}.lock`)).toBe(false);
  });

  it('derives again over a damaged cached file', () => {
    const source = writeWordVectorSource(tempDir());
    const cacheDir = tempDir();
    const path = wordTablePath({ cacheDir, source, derivation });
    const good = loadWordTable({ cacheDir, source, derivation });
    writeFileSync(path, readFileSync(path).subarray(0, 30));
    expect(loadWordTable({ cacheDir, source, derivation }).words).toEqual(good.words);
    expect(readFileSync(path).length).toBeGreaterThan(30);
  });
});
