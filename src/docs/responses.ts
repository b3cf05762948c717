import { z } from "zod";

/**
 * OpenAPI response objects for `detail.responses`, made from zod schemas. Routes document their
 * answers here rather than with Elysia's `response` hook, which would validate (and could refuse
 * or strip) what a handler returns: the proxy relays provider bodies untouched, and documenting
 * an answer must never change it.
 */
// Schemas typed `never`: zod's JSON Schema output is a plain object the OpenAPI types cannot name.
type MediaType = { schema: never };
type Header = { description: string; schema: { type: "string" } };
type ResponseObject = { description: string; headers?: Record<string, Header>; content?: Record<string, MediaType> };
export type Responses = Record<number, ResponseObject>;

/**
 * zod → JSON Schema for the document. A response as a client receives it (`output`: every member
 * the server writes is listed, nothing else appears); a request as a client sends it (`input`: a
 * field with a default is optional). zod's own bounds of a plain integer (±2^53) are left out.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: ({ jsonSchema }) => {
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as Record<string, unknown>;
  return rest;
}

export const jsonContent = (schema: z.ZodType) => ({ "application/json": { schema: toJsonSchema(schema, "output") as never } });

/** A request body documented by hand (a route that reads its own body), with examples a client can send as they are. */
export const jsonRequestContent = (schema: z.ZodType, examples: Record<string, { summary: string; value: unknown }>) => ({
  "application/json": { schema: toJsonSchema(schema, "input"), examples },
});

/** One documented answer with a JSON body. */
export const json = (description: string, schema: z.ZodType): ResponseObject => ({ description, content: jsonContent(schema) });

// ---- Error bodies (docs/errors.md) ----

/** Sieve's own APIs: the spec's `{detail, status_code}` (§7) plus `code`; a few errors add members (a variant's `status`, a limit's figures). */
export const sieveErrorBody = z.looseObject({ detail: z.string(), status_code: z.int(), code: z.string() });

/** The two 404 bodies spec §7 fixes exactly. */
export const specNotFoundBody = (detail: "Variant not found" | "Document not found") => z.strictObject({ detail: z.literal(detail), status_code: z.literal(404) });

/** Spec §2.9: a firewall block on an OpenAI path (and data protection's block of an embeddings request). */
export const blockedBody = z.strictObject({ error: z.literal("blocked_by_firewall"), reason: z.string(), request_id: z.string() });

/** The same members on /v1/messages, plus the `type` and `message` the Anthropic SDK prints. */
export const anthropicBlockedBody = blockedBody.extend({ type: z.literal("error"), message: z.string() });

export const openaiErrorBody = z.looseObject({
  error: z.strictObject({ message: z.string(), type: z.string(), param: z.null(), code: z.string() }),
  request_id: z.string().optional(),
});

export const anthropicErrorBody = z.looseObject({
  type: z.literal("error"),
  error: z.strictObject({ type: z.string(), message: z.string(), code: z.string() }),
  request_id: z.string().optional(),
});

/** `provider`: a pass-through request, answered in the shape of the provider its headers name. */
export type ErrorDialect = "sieve" | "openai" | "anthropic" | "provider";

const ERROR_BODIES: Record<ErrorDialect, z.ZodType> = {
  sieve: sieveErrorBody,
  openai: openaiErrorBody,
  anthropic: anthropicErrorBody,
  provider: z.union([openaiErrorBody, anthropicErrorBody]),
};

/** Response headers, each a string. */
export const headers = (described: Record<string, string>): Record<string, Header> =>
  Object.fromEntries(Object.entries(described).map(([name, description]) => [name, { description, schema: { type: "string" } }]));

/** Spec §4.4, on every proxied answer (and X-Service-Request-Id on every answer). */
export const PROXY_HEADERS = headers({
  "X-Service-Cache": "hit when served from the cache, miss otherwise (skip when not looked up)",
  "X-Service-Latency-Ms": "Overhead Sieve added, in milliseconds",
  "X-Service-Upstream-Latency-Ms": "Time spent at the provider, in milliseconds",
  "X-Service-Request-Id": "The evidence record's id (GET /v1/evidence/{request_id})",
});

/** When each status happens, as docs/errors.md lists it; a route may say it more precisely. */
const WHEN: Record<number, string> = {
  400: "A field, parameter or header is invalid; the message names it (code invalid_request or invalid_json)",
  401: "Missing, unknown or revoked API key (code unauthorized)",
  403: "The key belongs to another workspace than X-Service-Workspace-Id, or lacks the admin role (code forbidden)",
  404: "Not found in the caller's workspace (code not_found)",
  409: "Conflicts with the current state (the message says which)",
  413: "The body is larger than the server accepts (code payload_too_large)",
  415: "The body is not application/json (code unsupported_media_type)",
  429: "A requests, tokens or spend limit is reached (code rate_limited); Retry-After says when to retry",
  502: "The provider cannot be reached, or its address is not allowed (codes upstream_unreachable, upstream_refused, upstream_error)",
  503: "Every routed target is out of rotation, the database does not answer, or the model is still loading",
  504: "No provider answer within --upstream-timeout-ms (code upstream_timeout)",
};

/**
 * Error answers in one dialect's shape, each status with its usual meaning unless `when` says it
 * more precisely. A status given a schema in `bodies` (the spec's fixed 404s, the block) uses it.
 */
export function errors(dialect: ErrorDialect, statuses: readonly number[], when: Record<number, string> = {}, bodies: Record<number, z.ZodType> = {}): Responses {
  return Object.fromEntries(statuses.map((status) => [status, json(when[status] ?? WHEN[status] ?? `HTTP ${status}`, bodies[status] ?? ERROR_BODIES[dialect])]));
}

/** The errors every key-authenticated Sieve API can answer: no or a wrong key, another workspace's key (or a service key where an admin's is needed), a limit reached. */
export const AUTH_ERRORS = [401, 403, 429] as const;
