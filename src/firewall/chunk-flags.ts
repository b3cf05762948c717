/**
 * Poisoned-chunk flags (issue #51): a document chunk's text is scanned as the data channel, as the
 * proxy scans a document or tool result, and its verdict is stored with the chunk
 * (metadata.injection), so a RAG application can drop a poisoned chunk before its model reads it.
 */
import type { ChunkInjection } from "../documents/chunking";
import { round } from "./decision";
import type { ScanResult } from "./scan";

/**
 * Second-look tokens per chunk (the most suspicious windows' sub-windows first). Unlimited, a
 * 512-token chunk of ordinary prose took ~47 sub-windows beside its ~34 windows; with 64 tokens,
 * ~5, and the data-channel dev set's verdicts were the same (64 of 100 injected rows blocked, 0
 * plain, 20 person-addressed: docs/documents.md, *Poisoned-chunk flags*).
 */
export const CHUNK_SECOND_LOOK_TOKENS = 64;

/**
 * The verdict, the score of the hit behind it (the strongest fired pattern with the winning action,
 * as `decide` picks it; the best-scoring pattern when nothing fired), that hit's family and where its
 * window starts in the text.
 */
export function chunkInjection(result: ScanResult): ChunkInjection {
  const { verdict, fired, best } = result;
  const hit = fired.find((h) => h.pattern.action === verdict.action) ?? best;
  return {
    score: hit ? round(hit.score) : null,
    verdict: verdict.action,
    family: verdict.family ?? hit?.pattern.family ?? null,
    window: hit?.origin ? { offset: hit.origin.offset } : null,
  };
}
