/**
 * How the cache stores an embedding: the float32 vector itself (exact re-scoring) and its sign
 * bits, packed eight to a byte, for the Hamming-distance search (src/db/sign-bit-index.ts). Two
 * vectors at cosine 0.9 differ in about 14% of their signs; unrelated ones in about 45%.
 */
export function signBits(vector: Float32Array): Uint8Array {
  const bits = new Uint8Array(Math.ceil(vector.length / 8));
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) bits[i >> 3]! |= 1 << (i & 7);
  return bits;
}

/**
 * The most sign bits a stored vector may differ in from the query and still be worth re-scoring
 * against a similarity `threshold`: as many as two vectors 0.15 below the threshold differ in when
 * each bit splits them like a random hyperplane (their angle over π of the bits), plus 16. Measured
 * on 2,400 training texts (firewall-train.jsonl, every pair at cosine ≥ 0.5): MiniLM's sign bits
 * follow that angle closely, and no pair at or above a threshold came near this bound (at 0.9 the
 * most was 65 bits, the bound is 105; at 0.5, 151 against 164). Rows further away are not read.
 */
export function candidateDistanceBound(threshold: number, dimensions = 384): number {
  const cosine = Math.max(-1, Math.min(1, threshold - 0.15));
  return Math.ceil((dimensions * Math.acos(cosine)) / Math.PI) + 16;
}

export function floatsToBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * The blob's floats: a view of its bytes when they are 4-byte aligned (bun:sqlite's blobs are),
 * else a copy (a blob need not be aligned: a PostgreSQL driver's may be a slice of a larger buffer).
 * Callers only read it at once (re-scoring), never keep it.
 */
export function floatsFromBlob(blob: Uint8Array): Float32Array {
  return blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2) : new Float32Array(blob.slice().buffer);
}

/** Cosine similarity of two L2-normalised vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
