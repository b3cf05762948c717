import { badRequest } from "../http/errors";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, type ChunkingStrategy } from "./chunking";
import { isSet, type ChunkingRequest } from "./model";

/** One chunking configuration: what distinguishes two variants of the same version. */
export type ChunkingConfig = { strategy: ChunkingStrategy; chunkSize: number; chunkOverlap: number; contextualPrefix: boolean; redactFindings: boolean; tableInlineMaxTokens: number };

/**
 * Fills the defaults: recursive, 512 tokens, overlap min(50, chunk_size / 4) so a small
 * chunk_size alone is always valid. An explicit overlap must stay below chunk_size, and
 * table_inline_max_tokens (default 0: no table inline) at or below it.
 * `redactByDefault` is the workspace's data_protection.redact_documents.
 */
export function resolveChunking(request: ChunkingRequest, redactByDefault: boolean): ChunkingConfig {
  const chunkSize = aliased(request.chunk_size, request.max_tokens, "max_tokens", "chunk_size") ?? DEFAULT_CHUNK_SIZE;
  const requestedOverlap = aliased(request.chunk_overlap, request.overlap_tokens, "overlap_tokens", "chunk_overlap");
  const chunkOverlap = requestedOverlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, Math.floor(chunkSize / 4));
  if (chunkOverlap >= chunkSize) throw badRequest(`chunk_overlap: must be smaller than chunk_size (${chunkSize})`);
  const redactFindings = request.redact_findings === undefined ? redactByDefault : isOn(request.redact_findings);
  const tableInlineMaxTokens = request.table_inline_max_tokens ?? 0;
  // A table kept inline must fit a chunk: a larger one would have to be cut, which is what a table chunk split by rows does properly.
  if (tableInlineMaxTokens > chunkSize) throw badRequest(`table_inline_max_tokens: must not exceed chunk_size (${chunkSize})`);
  return { strategy: request.chunking_strategy ?? "recursive", chunkSize, chunkOverlap, contextualPrefix: isOn(request.contextual_prefix), redactFindings, tableInlineMaxTokens };
}

/** A JSON boolean, or a form field's true/false/1/0. */
const isOn = (flag: ChunkingRequest["contextual_prefix"] | ChunkingRequest["redact_findings"]) => flag === true || (typeof flag === "string" && isSet(flag));

/** `max_tokens` is `chunk_size` under another name (and `overlap_tokens` `chunk_overlap`): both may be sent only when they agree. */
function aliased(value: number | undefined, alias: number | undefined, aliasName: string, name: string): number | undefined {
  if (value !== undefined && alias !== undefined && value !== alias) throw badRequest(`${aliasName}: is another name for ${name} and differs from it (${alias} vs ${value}); send one`);
  return value ?? alias;
}
