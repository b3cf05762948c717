/**
 * Embeddings of the built-in patterns and contrast texts, computed by scripts/fit/firewall.ts
 * and shipped with the code (int16-quantised, base64), so a new data dir is protected from its
 * first request without embedding ~200 texts at start-up. Used only when the running embedder is
 * the one they were computed with and the text is unchanged; anything else is embedded.
 */
import { createHash } from "node:crypto";
import shipped from "../../models/sieve-firewall/builtin-vectors.json";

export type ShippedVectors = {
  model: string;
  dims: number;
  /** slug → text hash + vector. */
  patterns: Record<string, { sha: string; vector: string }>;
  contrast: { sha: string; vector: string }[];
};

const SHIPPED = shipped as ShippedVectors;
const SCALE = 32767;

export const textSha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

export function encodeVector(vector: Float32Array): string {
  const quantised = Int16Array.from(vector, (v) => Math.round(Math.max(-1, Math.min(1, v)) * SCALE));
  return Buffer.from(quantised.buffer).toString("base64");
}

export function decodeVector(encoded: string): Float32Array {
  const bytes = Buffer.from(encoded, "base64");
  const quantised = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  return Float32Array.from(quantised, (v) => v / SCALE);
}

/** The shipped vector of a built-in pattern, if it was made by `model` from exactly this text. */
export function shippedPatternVector(model: string, slug: string, text: string): Float32Array | undefined {
  const entry = SHIPPED.model === model ? SHIPPED.patterns[slug] : undefined;
  return entry && entry.sha === textSha(text) ? decodeVector(entry.vector) : undefined;
}

export function shippedContrastVector(model: string, text: string): Float32Array | undefined {
  if (SHIPPED.model !== model) return undefined;
  const sha = textSha(text);
  const entry = SHIPPED.contrast.find((c) => c.sha === sha);
  return entry ? decodeVector(entry.vector) : undefined;
}
