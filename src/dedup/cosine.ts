/** Euclidean norm, precomputed once per stored embedding. */
export function vectorNorm(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  return Math.sqrt(sum);
}

/** Cosine of two vectors given their norms; 0 when either is the zero vector. */
export function cosineWithNorms(a: Float32Array, aNorm: number, b: Float32Array, bNorm: number): number {
  if (a.length !== b.length) throw new Error(`embedding dimensions differ: ${a.length} vs ${b.length}`);
  if (aNorm === 0 || bNorm === 0) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot / (aNorm * bNorm);
}
