import { CONTRAST_TEXTS } from "./contrast";
import { BUILTIN_PATTERNS, FAMILY_DEFAULTS, type LibraryPattern } from "./library";
import type { IndexedPattern, PatternMeta } from "./pattern-index";
import { shippedContrastVector, shippedPatternVector } from "./shipped-vectors";

/** A library entry with its family's default action and threshold. */
export function builtinMeta(pattern: LibraryPattern): PatternMeta {
  const defaults = FAMILY_DEFAULTS[pattern.family];
  return {
    id: pattern.slug,
    family: pattern.family,
    side: pattern.side,
    action: pattern.action ?? defaults.action,
    threshold: pattern.threshold ?? defaults.threshold,
    builtIn: true,
  };
}

type EmbedMany = (texts: string[]) => Promise<Float32Array[]>;

/** Vectors for `texts`: shipped ones where they match `model`, the rest embedded in one batch. */
async function vectorsFor(texts: string[], shippedVector: (text: string, i: number) => Float32Array | undefined, embed: EmbedMany): Promise<Float32Array[]> {
  const vectors = texts.map(shippedVector);
  const missing = texts.flatMap((_, i) => (vectors[i] ? [] : [i]));
  if (missing.length > 0) {
    const fresh = await embed(missing.map((i) => texts[i]!));
    missing.forEach((i, k) => (vectors[i] = fresh[k]!));
  }
  return vectors as Float32Array[];
}

/** The whole library with vectors, without a database: what the fit and eval scripts score against. */
export async function libraryIndexInput(model: string, embed: EmbedMany): Promise<{ patterns: IndexedPattern[]; contrast: Float32Array[] }> {
  const vectors = await vectorsFor(BUILTIN_PATTERNS.map((p) => p.text), (text, i) => shippedPatternVector(model, BUILTIN_PATTERNS[i]!.slug, text), embed);
  return { patterns: BUILTIN_PATTERNS.map((p, i) => ({ meta: builtinMeta(p), vector: vectors[i]! })), contrast: await contrastVectors(model, embed) };
}

export function contrastVectors(model: string, embed: EmbedMany): Promise<Float32Array[]> {
  return vectorsFor(CONTRAST_TEXTS, (text) => shippedContrastVector(model, text), embed);
}
