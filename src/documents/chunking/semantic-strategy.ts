/**
 * Semantic strategy: prose is cut into sentences (code blocks stay whole), they are embedded
 * batch by batch (only consecutive similarities are kept), and a topic shift is marked before each sentence whose
 * similarity to the previous one falls below the document's threshold (see similarity.ts).
 * Only sentences in one run of prose are compared: a heading or a table already separates.
 * The packer honours a shift once the chunk holds a quarter of chunkSize, and still closes
 * chunks at chunkSize, so chunks stay within [chunkSize / 4, chunkSize] tokens where the text allows.
 */
import type { FlowItem } from "./section-flow.ts";
import { cosine } from "../../embeddings/vectors.ts";
import { topicShiftThreshold } from "./similarity.ts";
import { blockUnit, splitUnit, type Unit } from "./units.ts";

export const MIN_TOPIC_CHUNK_FRACTION = 0.25;

export type EmbedMany = (texts: string[]) => Promise<Float32Array[]>;

/** Sentences embedded per embedMany call: only one batch of vectors (and the last vector before it) is held at a time. */
const SENTENCE_BATCH = 256;

/** `maxChars`: a sentence is embedded from at most its first maxChars characters (the model reads only its first 256 tokens). */
export async function semanticUnits(flow: FlowItem[], isProse: (index: number) => boolean, embedMany: EmbedMany, maxChars: number): Promise<Unit[][]> {
  const units = flow.map((item, i) =>
    isProse(i) && item.block.kind !== "code" ? splitUnit(blockUnit(item), "sentence") : [blockUnit(item)],
  );
  const sentences: { unit: Unit; continuesRun: boolean }[] = [];
  let runBroken = true;
  flow.forEach((_, i) => {
    if (!isProse(i)) {
      runBroken = true;
      return;
    }
    for (const unit of units[i]) {
      sentences.push({ unit, continuesRun: !runBroken });
      runBroken = false;
    }
  });
  if (sentences.length === 0) return units;

  const similarities: (number | null)[] = [];
  let previous: Float32Array | undefined;
  for (let start = 0; start < sentences.length; start += SENTENCE_BATCH) {
    const batch = sentences.slice(start, start + SENTENCE_BATCH);
    const vectors = await embedMany(batch.map((sentence) => sentence.unit.text.slice(0, maxChars)));
    batch.forEach((sentence, k) => {
      similarities.push(sentence.continuesRun ? cosine(previous!, vectors[k]) : null);
      previous = vectors[k];
    });
  }
  const threshold = topicShiftThreshold(similarities.filter((value) => value !== null));
  if (threshold === null) return units;
  sentences.forEach((sentence, k) => {
    const similarity = similarities[k];
    if (similarity !== null && similarity < threshold) sentence.unit.topicShift = true;
  });
  return units;
}
