/** Turning the units of one chunk into a ChunkDraft: text, pages, section, tokens, score, metadata. */
import type { DocumentFormat, DocumentProperties } from "../parsing/types.ts";
import { qualityScore } from "./quality-score.ts";
import type { ChunkDraft, ChunkingStrategy, ChunkMetadata, ChunkType, TableMetadata } from "./types.ts";
import { joinUnits, type Unit } from "./units.ts";

export type DraftParts = {
  units: Unit[];
  chunkType: ChunkType;
  table: TableMetadata | null;
  syntheticContext: string | null;
  tableDetails?: Pick<ChunkMetadata, "caption" | "table_part" | "table_parts" | "inline_tables">;
};

export type DraftContext = {
  format: DocumentFormat;
  strategy: ChunkingStrategy;
  countTokens: (text: string) => number;
  properties?: DocumentProperties;
};

export function assembleDraft(parts: DraftParts, chunkIndex: number, context: DraftContext): ChunkDraft {
  const { units } = parts;
  const text = joinUnits(units);
  const tokens = context.countTokens(text);
  const own = units.filter((unit) => unit.role !== "overlap");
  const overlap = units.filter((unit) => unit.role === "overlap");
  // The section a chunk belongs to is that of its last own unit: headings waiting for content
  // precede the content of their deepest section.
  const { section } = own[own.length - 1];
  const pages = [...new Set(units.flatMap((unit) => (unit.page === null ? [] : [unit.page])))].sort((a, b) => a - b);
  const language = own.find((unit) => unit.language)?.language;
  const ocrConfidences = own.flatMap((unit) => (unit.ocrConfidence === undefined ? [] : [unit.ocrConfidence]));
  const metadata: ChunkMetadata = {
    format: context.format,
    heading_level: section.headingLevel,
    char_start: Math.min(...own.map((unit) => unit.start)),
    char_end: Math.max(...own.map((unit) => unit.end)),
    block_start: Math.min(...own.map((unit) => unit.blockIndex)),
    block_end: Math.max(...own.map((unit) => unit.blockIndex)),
    overlap_tokens: overlap.length > 0 ? context.countTokens(joinUnits(overlap)) : 0,
    ...(language ? { language } : {}),
    ...(own.some((unit) => unit.role === "content" && unit.notes) ? { notes: true as const } : {}),
    // The lowest page confidence among the chunk's OCR'd text: the chunk is as doubtful as its worst page.
    ...(ocrConfidences.length > 0 ? { ocr: true as const, ocr_confidence: Math.round(Math.min(...ocrConfidences) * 100) / 100 } : {}),
    ...parts.tableDetails,
    ...context.properties,
  };
  return {
    text,
    page_number: pages[0] ?? null,
    page_range: pages,
    section_hierarchy: section.path,
    tokens,
    chunk_index: chunkIndex,
    metadata,
    chunk_type: parts.chunkType,
    contains_table: parts.table !== null,
    table_metadata: parts.table,
    chunking_strategy: context.strategy,
    section_number: section.sectionNumber,
    quality_score: qualityScore(text, tokens, parts.chunkType),
    synthetic_context: parts.syntheticContext,
    parent_index: null,
    bounding_box: null,
  };
}
