/**
 * ParsedDocument → ChunkDrafts. Walks the section flow once: headings and prose go to the
 * packer (as blocks for the recursive strategy, as sentences with topic shifts for the semantic
 * one); every table becomes its own chunk(s) with its caption; a new section always starts a
 * new chunk. Output is deterministic for the same input.
 */
import type { ParsedDocument } from "../parsing/types.ts";
import { assembleDraft, type DraftParts } from "./chunk-draft.ts";
import { ChunkPacker, type PackerSettings } from "./chunk-packer.ts";
import { recursiveUnits } from "./recursive-strategy.ts";
import { buildSectionFlow, type Section } from "./section-flow.ts";
import { MIN_TOPIC_CHUNK_FRACTION, semanticUnits } from "./semantic-strategy.ts";
import { tableContexts } from "./table-context.ts";
import { tablePieces } from "./table-chunks.ts";
import type { ChunkDraft, ChunkingOptions } from "./types.ts";
import type { Unit } from "./units.ts";

export const DEFAULT_CHUNK_SIZE = 512;
export const DEFAULT_CHUNK_OVERLAP = 50;

export async function chunkDocument(doc: ParsedDocument, options: ChunkingOptions): Promise<ChunkDraft[]> {
  const settings = packerSettings(options);
  const flow = buildSectionFlow(doc.blocks);
  const tables = tableContexts(flow);
  const captionIndices = new Set([...tables.values()].flatMap((context) => (context.captionIndex === null ? [] : [context.captionIndex])));
  const isProse = (i: number) => !["heading", "table"].includes(flow[i].block.kind) && !captionIndices.has(i);
  const units = options.strategy === "semantic" ? await semanticUnits(flow, isProse, requireEmbedMany(options)) : recursiveUnits(flow);

  const drafts: DraftParts[] = [];
  const packer = new ChunkPacker(settings, (packed) => drafts.push(proseParts(packed)));
  let section: Section | null = null;
  flow.forEach((item, i) => {
    if (item.section !== section) packer.sectionBreak();
    section = item.section;
    if (captionIndices.has(i)) return;
    if (item.block.kind !== "table") {
      for (const unit of units[i]) packer.add(unit);
      return;
    }
    const { captionIndex, syntheticContext } = tables.get(i)!;
    const caption = captionIndex === null ? null : flow[captionIndex];
    const pieces = tablePieces(item, caption, packer.tableBreak(), settings);
    pieces.forEach((piece, part) => {
      drafts.push({
        units: piece.units,
        chunkType: "table",
        table: piece.table,
        syntheticContext,
        tableDetails: {
          ...(caption ? { caption: caption.block.text } : {}),
          ...(pieces.length > 1 ? { table_part: part + 1, table_parts: pieces.length } : {}),
        },
      });
    });
  });
  packer.finish();

  const context = { format: doc.format, strategy: options.strategy, countTokens: options.countTokens };
  return drafts.map((parts, index) => assembleDraft(parts, index, context));
}

function proseParts(units: Unit[]): DraftParts {
  const content = units.filter((unit) => unit.role === "content");
  const isCode = content.length > 0 && content.every((unit) => unit.isCode);
  return { units, chunkType: isCode ? "code" : "text", table: null, syntheticContext: null };
}

function packerSettings(options: ChunkingOptions): PackerSettings {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new RangeError(`chunkOverlap must be an integer from 0 to chunkSize - 1, got ${chunkOverlap}`);
  }
  return { chunkSize, chunkOverlap, countTokens: options.countTokens, minTopicTokens: Math.floor(chunkSize * MIN_TOPIC_CHUNK_FRACTION) };
}

function requireEmbedMany(options: ChunkingOptions): NonNullable<ChunkingOptions["embedMany"]> {
  if (!options.embedMany) throw new TypeError("The semantic strategy needs embedMany");
  return options.embedMany;
}
