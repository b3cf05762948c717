import { z } from "zod";
import { wholeNumber } from "../http/whole-number";
import { MAX_CACHE_TTL_SECONDS } from "../proxy/request";

export const cacheEntriesQuery = z.object({
  limit: wholeNumber(1, 500).default(50),
  offset: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0),
});

export const cacheKeyParams = z.object({ key: z.string().regex(/^[0-9a-f]{64}$/, "must be a cache key: 64 lower-case hex characters") });

export const cacheSettingsPatch = z
  .strictObject({
    enabled: z.boolean(),
    semantic: z.boolean(),
    /** Cosine similarity a semantic hit needs; null restores the built-in default. */
    threshold: z.number().min(0.5).max(1).nullable(),
    ttl_seconds: z.number().int().min(1).max(MAX_CACHE_TTL_SECONDS),
    max_entries: z.number().int().min(1).max(1_000_000),
  })
  .partial()
  .meta({ examples: [{ threshold: 0.92, ttl_seconds: 3600 }] });

export type CacheSettingsPatch = z.infer<typeof cacheSettingsPatch>;

// ---- Responses (documented in the OpenAPI document; service.ts writes them) ----

export const cacheStatsView = z.object({
  entries: z.int().describe("Live entries"),
  bytes: z.int(),
  hits: z.int(),
  exact_hits: z.int(),
  semantic_hits: z.int(),
  misses: z.int(),
  hit_rate: z.number().describe("hits / (hits + misses), 0 before any lookup"),
  upstream_ms_saved: z.number().describe("Provider time the hits saved, in milliseconds"),
});

export const cacheEntryView = z.object({
  key: z.string().describe("64 hex characters; the X-Service-Cache-Key of a hit"),
  model: z.string(),
  prompt: z.string().nullable().describe("The last user text (shortened to 300 characters in the list); null: only an exact repeat can hit"),
  semantic: z.boolean().describe("Whether a paraphrase can hit it (its prompt is embedded)"),
  bytes: z.int(),
  hits: z.int(),
  upstream_ms: z.number(),
  created_at: z.string(),
  last_used_at: z.string(),
  expires_at: z.string(),
});

export const cacheEntryList = z.object({ entries: z.array(cacheEntryView), total: z.int(), limit: z.int(), offset: z.int() });

export const cacheEntryWithAnswer = cacheEntryView.extend({ completion: z.unknown().describe("The stored answer, as the provider sent it") });

export const cacheSettingsResponse = z.object({
  enabled: z.boolean(),
  semantic: z.boolean(),
  threshold: z.number().nullable().describe("null: the built-in default"),
  effective_threshold: z.number(),
  ttl_seconds: z.int(),
  max_entries: z.int(),
});

export const cachePurged = z.object({ deleted: z.int() });
export const cacheEntryDeleted = z.object({ deleted: z.literal(1), key: z.string() });
