/**
 * OCR accuracy against a known text: 1 − (edit distance / length of the known text), over
 * characters (whitespace runs as one space) and over words. Used by the OCR tests and
 * eval:documents --ocr.
 */

function editDistance<T>(a: T[], b: T[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

const normalise = (text: string) => text.replace(/\s+/g, " ").trim();

export function characterAccuracy(read: string, known: string): number {
  const expected = [...normalise(known)];
  return Math.max(0, 1 - editDistance([...normalise(read)], expected) / expected.length);
}

export function wordAccuracy(read: string, known: string): number {
  const expected = normalise(known).split(" ");
  return Math.max(0, 1 - editDistance(normalise(read).split(" "), expected) / expected.length);
}
