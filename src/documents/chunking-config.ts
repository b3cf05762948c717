import { badRequest } from "../http/errors";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, type ChunkingStrategy } from "./chunking";
import type { ChunkingRequest } from "./model";

/** One chunking configuration: what distinguishes two variants of the same version. */
export type ChunkingConfig = { strategy: ChunkingStrategy; chunkSize: number; chunkOverlap: number };

/**
 * Fills the defaults: recursive, 512 tokens, overlap min(50, chunk_size / 4) so a small
 * chunk_size alone is always valid. An explicit overlap must stay below chunk_size.
 */
export function resolveChunking(request: ChunkingRequest): ChunkingConfig {
  const chunkSize = request.chunk_size ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = request.chunk_overlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, Math.floor(chunkSize / 4));
  if (chunkOverlap >= chunkSize) throw badRequest(`chunk_overlap: must be smaller than chunk_size (${chunkSize})`);
  return { strategy: request.chunking_strategy ?? "recursive", chunkSize, chunkOverlap };
}
