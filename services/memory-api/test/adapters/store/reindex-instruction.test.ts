import { BUILTIN_MODELS } from '@hindsight/embedding';
import { describe, expect, it } from 'vitest';
import { reindexInstruction } from '../../../src/adapters/store/reindex.ts';

/** What memory-api says when a store was built with another model than the configured one. */
const configured = { model: 'builtin-v11-512', dimension: 512 };

describe('the refusal of a store built with another embedding model', () => {
  it.each(BUILTIN_MODELS.filter((model) => model !== 'builtin-v11'))(
    'names EMBEDDINGS_MODEL=%s, still served, for a store that model built',
    (model) => {
      const refusal = reindexInstruction({ model: `${model}-512`, dimension: 512 }, configured, 'The store');
      expect(refusal).toContain('npm run reindex');
      expect(refusal).toContain(`set EMBEDDINGS_MODEL=${model} (on the embedder service too)`);
    },
  );

  it('says to restore the previous settings for a model that is not built in', () => {
    const refusal = reindexInstruction({ model: 'text-embedding-3-small', dimension: 1536 }, configured, 'The store');
    expect(refusal).toContain('npm run reindex');
    expect(refusal).toContain('restore the previous embedder settings');
    expect(refusal).not.toContain('EMBEDDINGS_MODEL=');
  });

  it('does not read a name that only looks like a built-in model as one', () => {
    const refusal = reindexInstruction({ model: 'builtin-v99-512', dimension: 512 }, configured, 'The store');
    expect(refusal).not.toContain('EMBEDDINGS_MODEL=');
  });
});
