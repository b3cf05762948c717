import { z } from "zod";

export const evidenceQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  /** ISO 8601 or epoch milliseconds. */
  since: z.string().optional(),
  until: z.string().optional(),
  status: z.coerce.number().int().min(100).max(599).optional(),
  cache: z.enum(["hit", "miss", "skip"]).optional(),
  firewall: z.enum(["allow", "log", "warn", "block"]).optional(),
  /** The API used, exactly as recorded: "POST /v1/responses", "GET /v1/models"… */
  api: z.string().min(1).max(200).optional(),
});

export type EvidenceQuery = z.infer<typeof evidenceQuery>;

export const requestIdParams = z.object({ request_id: z.string().min(1).max(64) });
