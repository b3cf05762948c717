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
 * 512-token chunk of ordinary prose took ~47 sub-windows beside its ~34 windows; with 128 tokens
 * ~10, and the data-channel dev set uploaded as documents was flagged exactly as without a cap
 * (with 64: 2 of its 100 injected documents fewer; docs/documents.md, *Poisoned-chunk flags*).
 */
export const CHUNK_SECOND_LOOK_TOKENS = 128;

/**
 * Score from which a chunk's window gets a second look (the request path's: SECOND_LOOK_FROM, 0.3).
 * Ordinary prose often reaches 0.3 and seldom 0.6: on generated 430-token prose chunks the second
 * look fell from 9.3 to 2.6 sub-windows per chunk (a fifth of the chunk's runs), while of 800
 * training injections in documents and tool outputs one fewer was flagged and of the data-channel
 * dev set uploaded as documents none (0.7 lost two of its search results; docs/research/firewall-experiments.md,
 * *Chunk flags: cost*).
 */
export const CHUNK_SECOND_LOOK_FROM = 0.6;

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
