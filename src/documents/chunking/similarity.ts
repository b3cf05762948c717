/** The rule that turns a document's consecutive-sentence similarities into topic shifts. */

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
