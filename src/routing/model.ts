import { z } from "zod";

/**
 * The routing file's shape (`--config sieve.yaml`, YAML or JSON): targets (upstream deployments)
 * and routes (which targets serve which requested models, and how). Keys are snake_case as
 * written in the file; src/routing/config-file.ts turns a valid file into a RoutingTable.
 */

/** openai: api.openai.com; anthropic: the Messages API; openai-compatible: Azure OpenAI, vLLM, Ollama, Groq, Together… */
export const TARGET_KINDS = ["openai", "anthropic", "openai-compatible"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a name of 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit");

const httpUrl = z.string().refine((raw) => {
  try {
    const url = new URL(raw);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.search && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}, "an http(s) URL without query, fragment or credentials (put query parameters under query:)");

/**
 * Where a routing document's secrets come from. A secret is never written in the document itself:
 * the operator's file names an environment variable (`env:NAME`), a workspace's routes name one of
 * its stored secrets (`secret:NAME`, encrypted at rest). A workspace cannot read the server's
 * environment, and the file cannot read a workspace's secrets.
 */
export type SecretSource = "env" | "secret";
export const REFERENCES: Record<SecretSource, { pattern: RegExp; hint: string }> = {
  env: { pattern: /^env:([A-Za-z_][A-Za-z0-9_]*)$/, hint: "write env:NAME and put the value in that environment variable (secrets are not written in the file)" },
  secret: { pattern: /^secret:([A-Za-z0-9][A-Za-z0-9._-]{0,63})$/, hint: "write secret:NAME and store the value with PUT /api/routing/secrets/NAME (secrets are not written in the routes)" },
};
/** A header value: literal text, or a reference to a secret. */
const headerValue = z.string().max(8192);

const count = (min: number, max: number) => z.int().min(min).max(max);

/** When a target is taken out of rotation, and for how long (per instance, in memory). */
export const breakerSchema = z.strictObject({
  /** Consecutive failed attempts that open the circuit. */
  consecutive_failures: count(1, 10_000).default(5),
  /** Or this share of failed attempts within window_ms… */
  failure_rate: z.number().gt(0).max(1).default(0.5),
  /** …once the window holds at least this many attempts. */
  min_requests: count(1, 1_000_000).default(20),
  window_ms: count(1_000, 3_600_000).default(60_000),
  /** How long an open circuit stays open before one probe request may try the target again. */
  cooldown_ms: count(100, 3_600_000).default(30_000),
});
export type BreakerPolicy = z.infer<typeof breakerSchema>;

const targetSchema = (secrets: SecretSource) => z.strictObject({
  name,
  kind: z.enum(TARGET_KINDS),
  /** As the provider's SDK takes it: OpenAI kinds end in /v1 (or their deployment path), Anthropic's does not. */
  base_url: httpUrl,
  /** Else the caller's Authorization / x-api-key is forwarded as sent. */
  api_key: z.string().regex(REFERENCES[secrets].pattern, REFERENCES[secrets].hint).optional(),
  /** Extra request headers (e.g. Azure's `api-key: env:AZURE_KEY`); values may be secret references. */
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "a header name"), headerValue).optional(),
  /** Query parameters added to every request (e.g. Azure's api-version). */
  query: z.record(z.string().min(1).max(64), z.string().max(256)).optional(),
  /** Requested model → the model name this target knows it by. */
  models: z.record(z.string().min(1).max(256), z.string().min(1).max(256)).optional(),
  /** Share of a loadbalance route's traffic, relative to the route's other targets. */
  weight: z.number().positive().max(1_000_000).default(1),
  breaker: breakerSchema.partial().optional(),
});

/** A route's target: a target's name, or the name with a weight or model for this route only. */
const routeTargetSchema = z.union([name, z.strictObject({ name, weight: z.number().positive().max(1_000_000).optional(), model: z.string().min(1).max(256).optional() })]);

export const retrySchema = z.strictObject({
  /** Tries of one target after its first, before the route moves on to its next target. */
  attempts: count(0, 10).default(1),
  /** First backoff; doubles with each retry, with jitter. */
  backoff_ms: count(0, 60_000).default(200),
  max_backoff_ms: count(0, 600_000).default(5_000),
  /** A Retry-After (or retry-after-ms) longer than this is not waited for: the route moves on. */
  max_retry_after_ms: count(0, 3_600_000).default(20_000),
});
export type RetryPolicy = z.infer<typeof retrySchema>;

export const routeSchema = z.strictObject({
  /** Shown in metrics and logs; default: the match. */
  name: name.optional(),
  /** An exact model name or alias ("smart"), a glob ("gpt-4o*"), or a list of them. */
  match: z.union([z.string().min(1).max(256), z.array(z.string().min(1).max(256)).min(1).max(100)]),
  strategy: z.enum(["fallback", "loadbalance"]).default("fallback"),
  targets: z.array(routeTargetSchema).min(1).max(100),
  retry: retrySchema.prefault({}),
  /** One attempt's wait for the provider's response headers (and, for streams, the longest pause); default --upstream-timeout-ms. */
  timeout_ms: count(1, 3_600_000).optional(),
  /** All attempts of one request together; default --upstream-timeout-ms. */
  deadline_ms: count(1, 3_600_000).optional(),
});

/** The operator's routing file, or a workspace's own routes (PUT /api/routing): one shape, two secret sources. */
export const routingDocumentSchema = (secrets: SecretSource) =>
  z.strictObject({
    targets: z.array(targetSchema(secrets)).min(1).max(1_000),
    routes: z.array(routeSchema).max(1_000).default([]),
    /** Defaults for every target's breaker: (each may override some keys). */
    breaker: breakerSchema.partial().optional(),
  });
export type RoutingDocument = z.infer<ReturnType<typeof routingDocumentSchema>>;

/** PUT /api/routing/secrets/{name}: the value is sealed at once and never returned. */
export const secretNameParams = z.object({ name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a name of 1–64 letters, digits, '.', '_' or '-'") });
export const secretBody = z.strictObject({ value: z.string().min(1).max(16_384) }).meta({ examples: [{ value: "sk-the-provider-key" }] });

/** The routing API's answer: the workspace's routes (the routing file's shape, secrets as secret:NAME), its secrets' names and its targets' health here. */
export const workspaceRoutingView = z.object({
  routing: z.record(z.string(), z.unknown()).nullable().describe("The routing document as stored (README: Routing and resilience); null: none"),
  secrets: z.array(z.string()).describe("Names only; values are never returned"),
  targets: z.array(z.object({ name: z.string(), kind: z.enum(TARGET_KINDS), breaker: z.enum(["closed", "open", "half_open"]), retry_in_ms: z.number() })),
  server_routes: z.boolean().describe("Whether the operator's routing file (--config) applies after these routes"),
});
