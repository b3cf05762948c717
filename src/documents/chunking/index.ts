/** Public face of chunking: ParsedDocument → ChunkDrafts. */
export { chunkDocument, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "./chunk-document.ts";
export { documentText } from "./section-flow.ts";
export type { ChunkDraft, ChunkInjection, ChunkingOptions, ChunkingStrategy, ChunkMetadata, ChunkType, TableMetadata } from "./types.ts";
