/** Vector similarity and the rule that turns a document's similarities into topic shifts. */

export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
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

/**
 * A topic shifts between two consecutive sentences whose similarity falls below the mean minus
 * one standard deviation of all consecutive-sentence similarities in the same document. Being
 * relative to the document, the rule adapts to both tightly and loosely written texts, where a
 * fixed cut-off would split everything or nothing. Null (no shifts) with fewer than two values.
 */
export function topicShiftThreshold(similarities: number[]): number | null {
  if (similarities.length < 2) return null;
  const mean = similarities.reduce((sum, value) => sum + value, 0) / similarities.length;
  const variance = similarities.reduce((sum, value) => sum + (value - mean) ** 2, 0) / similarities.length;
  return mean - Math.sqrt(variance);
}
