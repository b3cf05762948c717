/** Chunk drafts: every field of a spec §2.1 chunk that depends neither on storage nor on dedup. */
import type { DocumentFormat, EmailProperties } from "../parsing/types.ts";

export type ChunkType = "text" | "table" | "image" | "code";
export type ChunkingStrategy = "recursive" | "semantic";

/** A table chunk's shape: `rows` counts the header row (when there is one) plus the body rows in this chunk. */
export type TableMetadata = { rows: number; columns: number; headers: string[] };

/**
 * `score`: the highest calibrated score of any window (null: nothing the encoder could read);
 * `verdict`: allow, log, warn or block, as the proxy would decide the text as a document; `family`:
 * the pattern family behind the verdict (or the best score); `window.offset`: where that window
 * starts in the chunk text as the firewall read it (characters).
 */
export type ChunkInjection = { score: number | null; verdict: "allow" | "log" | "warn" | "block"; family: string | null; window: { offset: number } | null };

export type ChunkMetadata = {
  format: DocumentFormat;
  /** Entity types data protection found in the chunk's text, with counts; redacted: replaced in the stored text (src/data-protection/documents.ts). */
  data_protection?: { types: Record<string, number>; redacted: boolean };
  /** The firewall's data-channel verdict on the chunk's text (src/firewall/chunk-flags.ts); absent when it was not scanned. */
  injection?: ChunkInjection;
  /** Level of the deepest heading on section_hierarchy; null before the first heading. */
  heading_level: number | null;
  /** [char_start, char_end) of the chunk's own text (overlap excluded) in documentText(doc). */
  char_start: number;
  char_end: number;
  /** First and last doc.blocks index the chunk draws from. */
  block_start: number;
  block_end: number;
  /** Tokens at the start of the chunk repeated from the previous chunk. */
  overlap_tokens: number;
  /** Language of the code in the chunk, when known. */
  language?: string;
  /** Table chunks: the caption chunked with the table. */
  caption?: string;
  /** Text chunks holding tables kept inline (table_inline_max_tokens): each table's shape, in order; table_metadata is the first. */
  inline_tables?: TableMetadata[];
  /** Table chunks of a table split by rows: this piece (1-based) of how many. */
  table_part?: number;
  table_parts?: number;
  /** Slide decks: the chunk is speaker notes. */
  notes?: true;
  /** The chunk's text (some of it) was read by OCR from a scanned page or an image. */
  ocr?: true;
  /** With `ocr`: Tesseract's mean word confidence (0–1) of the least confident page the chunk's text comes from. */
  ocr_confidence?: number;
  /** Variants with contextual_prefix: what was prepended to the text for embedding (not to `text`). */
  embedded_text_prefix?: string;
  /** E-mails: the message's headers and attachment list, on every chunk. */
  email?: EmailProperties;
};

export type ChunkDraft = {
  text: string;
  /** First page of page_range; null when the format has no pages. */
  page_number: number | null;
  /** Every page the text comes from, ascending; [] when the format has no pages. */
  page_range: number[];
  /** Heading texts as written, outermost first. */
  section_hierarchy: string[];
  tokens: number;
  chunk_index: number;
  metadata: ChunkMetadata;
  /** "image" is never produced: images are not extracted. */
  chunk_type: ChunkType;
  contains_table: boolean;
  table_metadata: TableMetadata | null;
  chunking_strategy: ChunkingStrategy;
  /** From the deepest heading on section_hierarchy that carries one ("3.2.1"). */
  section_number: string | null;
  /** See quality-score.ts. */
  quality_score: number;
  /** Orphan tables only: see table-context.ts. */
  synthetic_context: string | null;
  /**
   * Local stand-in for parent_chunk_id (a chunk_index). Always null: chunks are flat, no
   * section-parent chunks are made; section_hierarchy already carries the nesting.
   */
  parent_index: number | null;
  /** Always null: no images, so no boxes. */
  bounding_box: null;
};

export type ChunkingOptions = {
  strategy: ChunkingStrategy;
  /** Maximum tokens per chunk, by countTokens. Default 512. */
  chunkSize?: number;
  /** Tokens repeated from the end of a chunk at the start of the next when a chunk is closed for size. Default 50. */
  chunkOverlap?: number;
  /** A table of at most this many tokens (its own text, caption aside) is packed with the text around it instead of becoming a table chunk. Default 0: never. */
  tableInlineMaxTokens?: number;
  countTokens: (text: string) => number;
  /** Required by the semantic strategy: one vector per text, in order. */
  embedMany?: (texts: string[]) => Promise<Float32Array[]>;
};
