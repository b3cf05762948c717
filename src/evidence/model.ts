import { z } from "zod";
import { wholeNumber } from "../http/whole-number";

export const evidenceQuery = z.object({
  limit: wholeNumber(1, 1000).default(100),
  offset: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0),
  /** ISO 8601 or epoch milliseconds. */
  since: z.string().optional(),
  until: z.string().optional(),
  status: wholeNumber(100, 599).optional(),
  cache: z.enum(["hit", "miss", "skip"]).optional(),
  firewall: z.enum(["allow", "log", "warn", "block"]).optional(),
  /** The API used, exactly as recorded: "POST /v1/responses", "GET /v1/models"… */
  api: z.string().min(1).max(200).optional(),
});

export type EvidenceQuery = z.infer<typeof evidenceQuery>;

export const requestIdParams = z.object({ request_id: z.string().min(1).max(64) });

// ---- Responses (documented in the OpenAPI document; service.ts writes them) ----

const jsonObject = z.record(z.string(), z.unknown());

export const evidenceRecord = z.object({
  request_id: z.string(),
  created_at: z.string(),
  key_id: z.string().nullable(),
  api: z.string().describe('"METHOD /path", e.g. "POST /v1/chat/completions"'),
  model: z.string().nullable(),
  stream: z.boolean(),
  status: z.int(),
  cache_status: z.enum(["hit", "miss", "skip"]),
  cache_rejected: jsonObject.nullable().describe("The closest semantic candidate the cache's verifier turned down, and why"),
  cache_hit: jsonObject.nullable().describe("The entry that answered a hit: key, prompt, similarity"),
  firewall_action: z.enum(["allow", "log", "warn", "block"]),
  firewall_matches: z.array(z.unknown()).describe("The patterns that fired, input and output side"),
  overhead_ms: z.number(),
  upstream_ms: z.number(),
  usage: z
    .object({
      prompt_tokens: z.int().nullable(),
      completion_tokens: z.int().nullable(),
      total_tokens: z.int().nullable(),
      cached_tokens: z.int().nullable(),
      reasoning_tokens: z.int().nullable(),
      estimated: z.boolean(),
    })
    .nullable(),
  cost_usd: z.number().nullable(),
  saved_cost_usd: z.number().nullable(),
  limit_warning: z.string().nullable(),
  prompt_sha256: z.string(),
  error: z.string().nullable(),
  attempts: z.array(jsonObject).nullable().describe("A routed request's tries: [{target, outcome, status, ms}]"),
  data_protection: z.array(jsonObject).describe("Findings [{side, type, rule?, action, count, where}], never a value"),
});

/** One record: with the bodies when the workspace logs them (null otherwise). */
export const evidenceRecordWithBodies = evidenceRecord.extend({ request_body: z.string().nullable(), response_body: z.string().nullable() });

export const evidenceList = z.object({ records: z.array(evidenceRecord), total: z.int(), limit: z.int(), offset: z.int() });
