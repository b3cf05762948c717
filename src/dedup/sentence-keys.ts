import { normaliseText } from './normalise';
import { splitSentences } from './sentences';

/**
 * The comparable form of a chunk's sentences: split, normalised, empty ones dropped
 * (a line of only punctuation, such as "---" inside a code block, carries no content).
 * Sentence counts in results are counts of these keys, for parent and child alike.
 */
export function sentenceKeys(text: string): string[] {
  const keys: string[] = [];
  for (const sentence of splitSentences(text)) {
    const key = normaliseText(sentence);
    if (key) keys.push(key);
  }
  return keys;
}
