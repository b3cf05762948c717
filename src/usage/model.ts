import { z } from "zod";

/**
 * An operator's prices for models the catalogue does not know (self-hosted, fine-tuned, private
 * deployments) or prices agreed apart from the list: in the routing file under `prices:`, US
 * dollars per million tokens. A name ending in `*` matches every model that starts with the rest.
 */
const perMillion = z.number().min(0).max(1_000_000);
export const priceOverrideSchema = z.strictObject({
  input_per_mtok: perMillion,
  output_per_mtok: perMillion,
  /** Input tokens read from the provider's prompt cache; default: the input price. */
  cached_input_per_mtok: perMillion.optional(),
});
export type PriceOverride = z.infer<typeof priceOverrideSchema>;

export const pricesSchema = z.record(z.string().min(1).max(256), priceOverrideSchema);

export const LIMIT_NAMES = ["requests_per_minute", "tokens_per_minute", "spend_per_day_usd", "spend_per_month_usd"] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * Limits of a workspace or of one key. null (in a PATCH) removes one; `soft: true` makes every
 * limit of the set warn (X-Service-Limit-Warning and an evidence flag) instead of refusing.
 */
export const limitsSchema = z.strictObject({
  requests_per_minute: z.int().min(1).max(100_000_000).nullable().optional(),
  tokens_per_minute: z.int().min(1).max(10_000_000_000).nullable().optional(),
  spend_per_day_usd: z.number().gt(0).max(100_000_000).nullable().optional(),
  spend_per_month_usd: z.number().gt(0).max(100_000_000).nullable().optional(),
  soft: z.boolean().optional(),
});
export type Limits = z.infer<typeof limitsSchema>;

/** The routing file's `limits:` section: defaults for every workspace and every key (the API's own settings win, limit by limit). */
export const fileLimitsSchema = z.strictObject({
  workspace: limitsSchema.optional(),
  key: limitsSchema.optional(),
});
export type FileLimits = z.infer<typeof fileLimitsSchema>;

export const usageQuery = z.object({
  group_by: z.enum(["model", "key", "api", "day"]).optional(),
  /** ISO 8601 or epoch milliseconds; default: 30 days before `to`. */
  from: z.string().max(64).optional(),
  /** Default: now. */
  to: z.string().max(64).optional(),
  format: z.enum(["json", "csv"]).default("json"),
});
export type UsageQuery = z.infer<typeof usageQuery>;

// ---- Responses (documented in the OpenAPI document) ----

/** One group's row: the group's own member (model, key + key_name, api or day) beside these. */
export const usageRow = z.looseObject({
  requests: z.int(),
  input_tokens: z.int(),
  output_tokens: z.int(),
  cached_tokens: z.int(),
  reasoning_tokens: z.int(),
  cost_usd: z.number(),
  saved_cost_usd: z.number(),
  cache_hits: z.int(),
  unpriced_requests: z.int(),
});

/** Without group_by: the document processing totals (the answer this path always had). */
export const documentUsage = z.object({
  workspace_id: z.string(),
  documents: z.object({
    documents_uploaded: z.int(),
    duplicates_detected: z.int(),
    variants_processed: z.int(),
    pages_processed: z.int(),
    pages_saved: z.int(),
    chunks_created: z.int(),
    embeddings_computed: z.int(),
    embeddings_reused: z.int(),
  }),
});

export const usageAnswer = z.union([z.object({ rows: z.array(usageRow) }), documentUsage]);
