/**
 * Semantic strategy: prose is cut into sentences (code blocks stay whole), all of them are
 * embedded in one embedMany call, and a topic shift is marked before each sentence whose
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

export async function semanticUnits(flow: FlowItem[], isProse: (index: number) => boolean, embedMany: EmbedMany): Promise<Unit[][]> {
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

  const vectors = await embedMany(sentences.map((sentence) => sentence.unit.text));
  const similarities = sentences.map((sentence, k) => (sentence.continuesRun ? cosine(vectors[k - 1], vectors[k]) : null));
  const threshold = topicShiftThreshold(similarities.filter((value) => value !== null));
  if (threshold === null) return units;
  sentences.forEach((sentence, k) => {
    const similarity = similarities[k];
    if (similarity !== null && similarity < threshold) sentence.unit.topicShift = true;
  });
  return units;
}
