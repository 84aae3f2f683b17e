import { describe, expect, it } from 'vitest';
import { BUILTIN_FEATURES, BuiltinEmbedder } from '../src/index.ts';
import { cosine, describeEmbedderContract } from './support/embedder-contract.ts';

describeEmbedderContract('builtin', async () => ({ embedder: new BuiltinEmbedder() }));

describe('BuiltinEmbedder', () => {
  const embedder = new BuiltinEmbedder({ dimension: 512 });
  const similarity = async (a: string, b: string) => {
    const [va, vb] = await embedder.embed([a, b]);
    return cosine(va as Float32Array, vb as Float32Array);
  };

  it('encodes algorithm version and dimension in the model name', () => {
    expect(new BuiltinEmbedder({ dimension: 256 }).model).toBe('builtin-v2-256');
    expect(embedder.model).toBe('builtin-v2-512');
  });

  it('names a non-default feature set as another model, so stores do not mix them', () => {
    const custom = new BuiltinEmbedder({ dimension: 512, features: { charNgrams: 0 } });
    expect(custom.model).not.toBe(embedder.model);
    expect(custom.model).toMatch(/^builtin-v2x[0-9a-z]+-512$/);
    expect(new BuiltinEmbedder({ dimension: 512, features: { ...BUILTIN_FEATURES } }).model).toBe(embedder.model);
  });

  it('gives identical vectors across instances (no hidden state)', async () => {
    const [a] = await embedder.embed(['The user prefers concise answers']);
    const [b] = await new BuiltinEmbedder({ dimension: 512 }).embed(['The user prefers concise answers']);
    expect(Array.from(a as Float32Array)).toEqual(Array.from(b as Float32Array));
  });

  it('ranks an English paraphrase above an unrelated sentence', async () => {
    const stored = 'I am allergic to peanuts';
    expect(await similarity(stored, 'does the user have a peanut allergy?')).toBeGreaterThan(
      await similarity(stored, 'the quarterly report is due on Friday'),
    );
  });

  it('ranks a Chinese paraphrase above an unrelated sentence', async () => {
    const stored = '用户喜欢简洁的回答';
    expect(await similarity(stored, '用户的回答偏好')).toBeGreaterThan(await similarity(stored, '明天北京会下雨'));
  });

  it('tolerates misspellings through character n-grams', async () => {
    const stored = 'We had dinner at an Italian restaurant downtown';
    const typo = await similarity(stored, 'itallian resturant');
    expect(typo).toBeGreaterThan(await similarity(stored, 'quantum physics homework'));
    const withoutNgrams = new BuiltinEmbedder({ dimension: 512, features: { charNgrams: 0 } });
    const [a, b] = await withoutNgrams.embed([stored, 'itallian resturant']);
    expect(typo).toBeGreaterThan(cosine(a as Float32Array, b as Float32Array));
  });

  it('matches related everyday words through the topic thesaurus', async () => {
    const stored = 'My mom taught me her pasta recipe';
    expect(await similarity(stored, 'what does she like to cook with her family?')).toBeGreaterThan(
      await similarity(stored, 'what car does he drive to work?'),
    );
  });

  it('treats numbers written as words and digits alike', async () => {
    expect(await similarity('I have two kids', 'I have 2 kids')).toBeCloseTo(1, 5);
  });

  it('maps text with no terms to the zero vector instead of NaN', async () => {
    const [v] = await embedder.embed(['!!! ...']);
    expect(Array.from(v as Float32Array).every((x) => x === 0)).toBe(true);
  });

  it('rejects a dimension outside 8..8192', () => {
    expect(() => new BuiltinEmbedder({ dimension: 4 })).toThrow(/dimension/);
  });
});
