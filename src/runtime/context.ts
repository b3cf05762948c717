import type { Config } from "../config";
import type { AllowedHosts } from "../egress/allowed-hosts";
import type { EvidenceWriter } from "../evidence/writer";
import type { Storage } from "../db/connection";
import type { VectorMemo } from "../embeddings/vector-memo";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../metrics/service";
import type { LimitKeeper } from "../usage/limits";
import type { UsageMeter } from "../usage/meter";
import type { Tracing } from "../telemetry/tracing";
import type { Breakers } from "../routing/breaker";
import type { RoutingFileSource } from "../routing/routing-file";
import type { SecretKeySource } from "../routing/secret-box";
import type { WorkspaceRoutes } from "../routing/workspace-routes";
import type { CacheCounters } from "../cache/counters";
import type { AfterResponse } from "./after-response";
import type { EmbedderSlot } from "./embedder-slot";

/**
 * What every feature plugin is built from: the long-lived parts of one running Sieve.
 * Passed explicitly (no module-level singletons) so tests can start several apps at once.
 */
export type AppContext = {
  config: Config;
  log: Logger;
  database: Storage;
  embedder: EmbedderSlot;
  /** The firewall's encoder (src/firewall/encoder.ts): `embedder` itself unless --firewall-model-dir names another. */
  firewallEncoder: EmbedderSlot;
  /** Embeddings through an LRU shared by the firewall, the cache and the API. */
  vectors: VectorMemo;
  evidence: EvidenceWriter;
  /** Work an answer does not wait for (its evidence record, cache write); the server's stop waits for it. */
  afterResponse: AfterResponse;
  /** The cache's hit and miss counts, written in batches (src/cache/counters.ts). */
  cacheCounters: CacheCounters;
  /** Usage, cost and limits (src/usage): the pipeline's meter and the limits every request is admitted under. */
  usage: { meter: UsageMeter; limits: LimitKeeper };
  /** OpenTelemetry traces (src/telemetry), when an OTLP endpoint is configured. */
  tracing: Tracing | undefined;
  /** Where a workspace's own provider URL may lead (--allow-upstream-hosts), parsed once. */
  allowedUpstreamHosts: AllowedHosts;
  /** What GET /metrics exposes; the stages record into it. */
  metrics: Metrics;
  /**
   * Routing (src/routing): the operator's file (--config) when there is one, each workspace's own
   * routes, the circuit breakers of both (per instance), and the key sealing workspace secrets.
   */
  routing: { file: RoutingFileSource | undefined; breakers: Breakers; workspaceRoutes: WorkspaceRoutes; tenantBreakers: Breakers; secretKeys: SecretKeySource };
  /** Session lifetime for dashboard logins. */
  sessionTtlMs: number;
};
