/**
 * 32-bit string hashing for feature hashing. FNV-1a over UTF-16 code units, then the
 * murmur3 finaliser so that low bits (the bucket) and the top bit (the sign) are well mixed.
 * Deterministic across processes and platforms, which the built-in model's contract needs.
 */
export function featureHash(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
