/** Vector helpers shared by every adapter and by the embedder service's wire format. */

/** Scales `v` to unit length in place; a zero vector stays zero (nothing to normalise). */
export function l2Normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) * (v[i] as number);
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  return v;
}

/** Dot product; equals cosine similarity for unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/**
 * Cosine similarity of two vectors of any scale: the one cosine of the project (stores holding
 * normalised vectors compare queries that may not be, tests and evals compare embeddings). A zero
 * vector is similar to nothing (0).
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

/** Little-endian float32 bytes as base64: the compact form of `POST /embed` (4 bytes per dimension). */
export function encodeVectorBase64(v: Float32Array): string {
  return Buffer.from(toLittleEndianBytes(v)).toString('base64');
}

export function decodeVectorBase64(text: string): Float32Array {
  return fromLittleEndianBytes(Buffer.from(text, 'base64'));
}

/** Float32 → little-endian bytes regardless of the host's byte order (the wire and cache format). */
export function toLittleEndianBytes(v: Float32Array): Uint8Array {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i] as number, true);
  return bytes;
}

export function fromLittleEndianBytes(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0)
    throw new Error(`float32 payload of ${bytes.byteLength} bytes is not a multiple of 4`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const v = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < v.length; i++) v[i] = view.getFloat32(i * 4, true);
  return v;
}
