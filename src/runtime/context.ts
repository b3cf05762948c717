import type { Config } from "../config";
import type { EvidenceWriter } from "../evidence/writer";
import type { DatabaseHandle } from "../db/connection";
import type { VectorMemo } from "../embeddings/vector-memo";
import type { Logger } from "../logging/logger";
import type { RateLimiter } from "../tenancy/rate-limit";
import type { EmbedderSlot } from "./embedder-slot";

/** Embeddings for bulk work (document chunks): a child process or the server's own embedder (--document-embedding). */
export type DocumentEmbedding = {
  embedMany(texts: string[]): Promise<Float32Array[]>;
  stop(): Promise<void>;
};

/**
 * What every feature plugin is built from: the long-lived parts of one running Sieve.
 * Passed explicitly (no module-level singletons) so tests can start several apps at once.
 */
export type AppContext = {
  config: Config;
  log: Logger;
  database: DatabaseHandle;
  embedder: EmbedderSlot;
  /** Embeddings through an LRU shared by the firewall, the cache and the API. */
  vectors: VectorMemo;
  documentEmbedding: DocumentEmbedding;
  evidence: EvidenceWriter;
  rateLimiter: RateLimiter;
  /** Session lifetime for dashboard logins. */
  sessionTtlMs: number;
};
