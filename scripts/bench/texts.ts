/** Deterministic benchmark texts of a chosen token length. */

const PROSE =
  "Sieve keeps a semantic cache in front of the language model so that repeated questions are answered " +
  "from storage instead of a new completion. Documents are split into chunks, embedded, and stored with " +
  "their versions; a query is embedded the same way and compared against the stored vectors. The firewall " +
  "checks every prompt against a list of forbidden topics before it reaches the upstream provider, and it " +
  "logs the decision together with the similarity score that triggered it. Operators tune the thresholds " +
  "per route, watch the hit rate on the dashboard, and rebuild the index when the embedding model changes.";

/**
 * A text of at most `tokens` wordpiece tokens (as countTokens measures), cut at a word boundary.
 * `variant` rotates the starting word so texts in a batch differ.
 */
export function textOfTokens(tokens: number, countTokens: (text: string) => number, variant = 0): string {
  const words = PROSE.split(" ");
  const rotated = [...words.slice(variant % words.length), ...words.slice(0, variant % words.length)];
  const pool = Array.from({ length: Math.ceil((tokens * 2) / words.length) + 1 }, () => rotated).flat();
  let low = 1;
  let high = pool.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (countTokens(pool.slice(0, mid).join(" ")) <= tokens) low = mid;
    else high = mid - 1;
  }
  return pool.slice(0, low).join(" ");
}
