/** Vector maths for sentence embeddings: mean pooling, L2 normalisation, cosine similarity. */

/**
 * Mean of the first `length` token vectors of one sequence in a [batch, sequence, dims] output,
 * L2-normalised. Padding sits after `length`, so it never enters the mean.
 */
export function meanPoolNormalized(hidden: Float32Array, sequence: number, dims: number, row: number, length: number): Float32Array {
  const pooled = new Float32Array(dims);
  const start = row * sequence * dims;
  for (let t = 0; t < length; t++) {
    const offset = start + t * dims;
    for (let d = 0; d < dims; d++) pooled[d] += hidden[offset + d];
  }
  return l2Normalize(pooled);
}

export function l2Normalize(vector: Float32Array): Float32Array {
  let sumSquares = 0;
  for (const v of vector) sumSquares += v * v;
  const norm = Math.sqrt(sumSquares);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`cosine: vector lengths differ (${a.length} vs ${b.length})`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
