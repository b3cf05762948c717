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
