/**
 * Simple, deterministic stand-ins for what the service injects into chunkDocument: the real
 * service counts MiniLM wordpieces and embeds with MiniLM; these count words and embed bags of words.
 */

export function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

const DIMENSIONS = 256;

/** Each lower-cased word of four letters or more adds 1 to a hashed dimension: shared words, similar vectors. */
export async function embedBagOfWords(texts: string[]): Promise<Float32Array[]> {
  return texts.map((text) => {
    const vector = new Float32Array(DIMENSIONS);
    for (const word of text.toLowerCase().match(/\p{L}{4,}/gu) ?? []) vector[hash(word) % DIMENSIONS] += 1;
    return vector;
  });
}

function hash(word: string): number {
  let value = 2166136261;
  for (let i = 0; i < word.length; i++) value = Math.imul(value ^ word.charCodeAt(i), 16777619) >>> 0;
  return value;
}
