import { describe, expect, it } from 'vitest';
import { cosine, decodeVectorBase64, encodeVectorBase64, fromLittleEndianBytes, l2Normalise } from '../src/index.ts';

describe('vector wire format', () => {
  it('round-trips float32 through little-endian base64 exactly', () => {
    const v = Float32Array.from([0.1, -2.5, 3.25e-8, 0]);
    const text = encodeVectorBase64(v);
    expect(Buffer.from(text, 'base64').readFloatLE(4)).toBe(-2.5);
    expect(Array.from(decodeVectorBase64(text))).toEqual(Array.from(v));
  });

  it('refuses a payload that is not whole float32 values', () => {
    expect(() => fromLittleEndianBytes(new Uint8Array(6))).toThrow(/multiple of 4/);
  });

  it('normalises to unit length and leaves a zero vector alone', () => {
    expect(Array.from(l2Normalise(Float32Array.from([3, 4])))).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(Array.from(l2Normalise(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it('computes cosine independently of vector length, a zero vector similar to nothing', () => {
    expect(cosine([2, 0], [0.5, 0])).toBeCloseTo(1);
    expect(cosine([1, 0], [0, 3])).toBeCloseTo(0);
    expect(cosine(Float32Array.from([1, 1]), Float32Array.from([-2, -2]))).toBeCloseTo(-1);
    expect(cosine([0, 0], [1, 0])).toBe(0);
  });
});
