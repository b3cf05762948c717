/**
 * ParsedDocument → ChunkDrafts. Walks the section flow once: headings and prose go to the
 * packer (as blocks for the recursive strategy, as sentences with topic shifts for the semantic
 * one); every table becomes its own chunk(s) with its caption, except a table within
 * tableInlineMaxTokens, which is packed whole with the text around it (its caption as prose)
 * unless it could only be cut there; a new section always starts a new chunk. Output is
 * deterministic for the same input.
 */
import type { ParsedDocument } from "../parsing/types.ts";
import { assembleDraft, type DraftParts } from "./chunk-draft.ts";
import { ChunkPacker, type PackerSettings } from "./chunk-packer.ts";
import { recursiveUnits } from "./recursive-strategy.ts";
import { buildSectionFlow, type Section } from "./section-flow.ts";
import { MIN_TOPIC_CHUNK_FRACTION, semanticUnits } from "./semantic-strategy.ts";
import { tableContexts } from "./table-context.ts";
import { shapeOf, tablePieces } from "./table-chunks.ts";
import type { ChunkDraft, ChunkingOptions } from "./types.ts";
import { windowPieces, type Unit } from "./units.ts";
import { TimeSlice } from "../time-slice.ts";

export const DEFAULT_CHUNK_SIZE = 512;
/**
 * A chunk holds at most chunkSize × this many characters. Prose runs at about 4-5 characters per
 * wordpiece and code at about 3, so only unbroken runs (base64, a megabyte without a space, which
 * the tokenizer counts as one unknown token per 100 characters) ever meet the bound; it keeps every
 * count, chunk and embedding input small whatever the text.
 */
export const MAX_CHARS_PER_TOKEN = 32;
export const DEFAULT_CHUNK_OVERLAP = 50;

export async function chunkDocument(doc: ParsedDocument, options: ChunkingOptions): Promise<ChunkDraft[]> {
  const settings = packerSettings(options);
  const flow = buildSectionFlow(doc.blocks);
  const tables = tableContexts(flow);
  const inlineLimit = options.tableInlineMaxTokens ?? 0;
  const small = new Set([...tables.keys()].filter((i) => inlineLimit > 0 && options.countTokens(flow[i].block.text) <= inlineLimit));
  // A small table's caption stays prose: it goes before the table whether the table ends up inline or not.
  const captionIndices = new Set([...tables].flatMap(([i, context]) => (context.captionIndex === null || small.has(i) ? [] : [context.captionIndex])));
  const isProse = (i: number) => !["heading", "table"].includes(flow[i].block.kind) && !captionIndices.has(i);
  const units = options.strategy === "semantic" ? await semanticUnits(flow, isProse, requireEmbedMany(options), settings.maxChars) : recursiveUnits(flow);

  // Each chunk is assembled as soon as it is packed, so its units (one per word, for a text cut
  // that fine) are garbage right away rather than held for the whole document.
  const context = { format: doc.format, strategy: options.strategy, countTokens: options.countTokens, properties: doc.properties };
  const drafts: ChunkDraft[] = [];
  const addDraft = (parts: DraftParts) => drafts.push(assembleDraft(parts, drafts.length, context));
  const packer = new ChunkPacker(settings, (packed) => addDraft(proseParts(packed)));
  const slice = new TimeSlice();
  let section: Section | null = null;
  for (const [i, item] of flow.entries()) {
    await slice.pause();
    if (item.section !== section) packer.sectionBreak();
    section = item.section;
    if (captionIndices.has(i)) continue;
    if (item.block.kind !== "table") {
      // One window at a time, so a huge block is packed over many turns of the event loop.
      for (const unit of units[i]) {
        for (const window of windowPieces(unit, settings.maxChars)) {
          packer.add(window);
          await slice.pause();
        }
      }
      continue;
    }
    if (small.has(i)) {
      const unit: Unit = { ...units[i][0], inlineTable: shapeOf(item.block.table!, item.block.table!.body.length) };
      if (packer.keepsWhole(unit)) {
        packer.add(unit);
        continue;
      }
    }
    const { captionIndex, syntheticContext } = tables.get(i)!;
    const caption = captionIndex === null || small.has(i) ? null : flow[captionIndex];
    const pieces = tablePieces(item, caption, packer.tableBreak(), settings);
    pieces.forEach((piece, part) => {
      addDraft({
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
  }
  packer.finish();

  return drafts;
}

function proseParts(units: Unit[]): DraftParts {
  const content = units.filter((unit) => unit.role === "content");
  const isCode = content.length > 0 && content.every((unit) => unit.isCode);
  const inlineTables = content.flatMap((unit) => (unit.inlineTable ? [unit.inlineTable] : []));
  return {
    units,
    chunkType: isCode ? "code" : "text",
    table: inlineTables[0] ?? null,
    syntheticContext: null,
    ...(inlineTables.length > 0 ? { tableDetails: { inline_tables: inlineTables } } : {}),
  };
}

function packerSettings(options: ChunkingOptions): PackerSettings {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new RangeError(`chunkOverlap must be an integer from 0 to chunkSize - 1, got ${chunkOverlap}`);
  }
  return {
    chunkSize,
    chunkOverlap,
    countTokens: options.countTokens,
    minTopicTokens: Math.floor(chunkSize * MIN_TOPIC_CHUNK_FRACTION),
    maxChars: chunkSize * MAX_CHARS_PER_TOKEN,
  };
}

function requireEmbedMany(options: ChunkingOptions): NonNullable<ChunkingOptions["embedMany"]> {
  if (!options.embedMany) throw new TypeError("The semantic strategy needs embedMany");
  return options.embedMany;
}
