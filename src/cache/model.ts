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
  .partial();

export type CacheSettingsPatch = z.infer<typeof cacheSettingsPatch>;
