/**
 * What surrounds a table: the caption that belongs to it, whether it is an orphan, and for an
 * orphan a synthetic context built from the section path, caption, column headers and the
 * nearest paragraphs before and after it (no language model involved).
 *
 * Caption: a caption block right before the table (else right after it) in the same section,
 * unless it is a figure caption. Orphan: the nearest block on each side within the same section,
 * captions skipped, is not a paragraph or list (another table, code, a heading, or nothing).
 */
import type { Block } from "../parsing/types.ts";
import { isFigureCaption } from "../parsing/caption-text.ts";
import type { FlowItem } from "./section-flow.ts";
import { sentenceSpans } from "./text-spans.ts";

export type TableContext = {
  /** Flow index of the table's caption, which is chunked with the table instead of as prose. */
  captionIndex: number | null;
  syntheticContext: string | null;
};

const NEIGHBOUR_WORDS = 30;

export function tableContexts(flow: FlowItem[]): Map<number, TableContext> {
  const tableIndices = flow.flatMap((item, i) => (item.block.kind === "table" ? [i] : []));
  // Captions usually precede tables: claim the preceding ones first, then following ones still free.
  const captionOf = new Map<number, number>();
  for (const offset of [-1, 1]) {
    for (const i of tableIndices) {
      const j = i + offset;
      if (!captionOf.has(i) && isOwnCaption(flow, i, j) && ![...captionOf.values()].includes(j)) captionOf.set(i, j);
    }
  }
  const contexts = new Map<number, TableContext>();
  for (const i of tableIndices) {
    const captionIndex = captionOf.get(i) ?? null;
    const caption = captionIndex === null ? null : flow[captionIndex].block.text;
    contexts.set(i, { captionIndex, syntheticContext: isOrphan(flow, i) ? syntheticContext(flow, i, caption) : null });
  }
  return contexts;
}

function isOwnCaption(flow: FlowItem[], tableIndex: number, j: number): boolean {
  const candidate = flow[j];
  return candidate !== undefined && candidate.block.kind === "caption" && candidate.section === flow[tableIndex].section && !isFigureCaption(candidate.block.text);
}

function isOrphan(flow: FlowItem[], tableIndex: number): boolean {
  return !explainsTable(nearestNonCaption(flow, tableIndex, -1)) && !explainsTable(nearestNonCaption(flow, tableIndex, 1));
}

function nearestNonCaption(flow: FlowItem[], from: number, step: 1 | -1): FlowItem | undefined {
  for (let j = from + step; j >= 0 && j < flow.length; j += step) {
    if (flow[j].section !== flow[from].section) return undefined;
    if (flow[j].block.kind !== "caption") return flow[j];
  }
  return undefined;
}

function explainsTable(neighbour: FlowItem | undefined): boolean {
  return neighbour !== undefined && isProse(neighbour.block);
}

function isProse(block: Block): boolean {
  return block.kind === "paragraph" || block.kind === "list";
}

function syntheticContext(flow: FlowItem[], tableIndex: number, caption: string | null): string {
  const { block, section } = flow[tableIndex];
  const parts: string[] = [];
  if (section.path.length > 0) parts.push(`Table in section "${section.path.join(" > ")}".`);
  if (caption) parts.push(`Caption: ${withoutFinalStop(caption)}.`);
  const headers = block.table?.headers.filter(Boolean) ?? [];
  if (headers.length > 0) parts.push(`Columns: ${headers.join(", ")}.`);
  const before = flow.slice(0, tableIndex).findLast((item) => isProse(item.block));
  const after = flow.slice(tableIndex + 1).find((item) => isProse(item.block));
  if (before) parts.push(`Preceding text: "${excerpt(before.block.text, "last")}"`);
  if (after) parts.push(`Following text: "${excerpt(after.block.text, "first")}"`);
  return parts.join(" ");
}

/** The first or last sentence of a text, at most NEIGHBOUR_WORDS words. */
function excerpt(text: string, which: "first" | "last"): string {
  const spans = sentenceSpans(text);
  const span = which === "first" ? spans[0] : spans[spans.length - 1];
  const words = text.slice(span.start, span.end).split(/\s+/);
  if (words.length <= NEIGHBOUR_WORDS) return words.join(" ");
  return which === "first" ? `${words.slice(0, NEIGHBOUR_WORDS).join(" ")} …` : `… ${words.slice(-NEIGHBOUR_WORDS).join(" ")}`;
}

function withoutFinalStop(text: string): string {
  return text.replace(/[.:;\s]+$/, "");
}
