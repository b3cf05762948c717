import { invalidAllowedHostEntry } from "../egress/allowed-hosts";
import { parseSecretKey } from "../routing/secret-box";

/**
 * Every setting Sieve reads, in one table: its flag, its environment variable, its default and
 * how a raw string becomes a typed value. `--help` and README are generated from the same rows,
 * so a setting cannot be documented in one place and missing in another.
 */
import { DEFAULT_DECOMPRESSION_LIMITS } from "../documents/parsing/limits";

export type OptionSpec<T> = {
  flag: string;
  env: string;
  help: string;
  default: T;
  parse: (raw: string) => T;
  /** Shown in --help instead of the default value (e.g. for defaults that depend on the machine). */
  defaultLabel?: string;
};

import { availableParallelism } from "node:os";

class OptionValueError extends Error {}

const integer = (min: number, max: number) => (raw: string): number => {
  if (!/^\d+$/.test(raw.trim())) throw new OptionValueError(`expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new OptionValueError(`must be between ${min} and ${max}, got ${value}`);
  return value;
};

const nonEmpty = (raw: string): string => {
  if (!raw.trim()) throw new OptionValueError("must not be empty");
  return raw;
};

/** Tesseract language codes (eng, deu, chi_sim…) joined with +, as Tesseract takes them. */
const ocrLanguageList = (raw: string): string => {
  const value = raw.trim();
  if (!/^[a-z][a-z_]*(\+[a-z][a-z_]*)*$/i.test(value)) throw new OptionValueError(`expected Tesseract language codes joined with +, e.g. eng+deu, got "${raw}"`);
  return value;
};

const httpUrl = (raw: string): string => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OptionValueError(`expected an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OptionValueError(`expected an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
};

const postgresUrl = (raw: string): string => {
  if (!raw.trim()) return "";
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new OptionValueError("expected a postgres:// URL");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new OptionValueError(`expected a postgres:// URL, got the scheme ${url.protocol}`);
  return raw.trim();
};

/** Checked here so a typo stops start-up; src/egress/allowed-hosts.ts interprets the entries. */
const upstreamHostList = (raw: string): string => {
  const problem = invalidAllowedHostEntry(raw);
  if (problem) throw new OptionValueError(problem);
  return raw.trim();
};

const oneOf = <T extends string>(...values: T[]) => (raw: string): T => {
  if (!(values as string[]).includes(raw)) throw new OptionValueError(`must be one of ${values.join(", ")}, got "${raw}"`);
  return raw as T;
};

const bool = (raw: string): boolean => {
  const value = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(value)) return true;
  if (["0", "false", "no", "off"].includes(value)) return false;
  throw new OptionValueError(`expected true or false, got "${raw}"`);
};

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const serveOptions = {
  port: { flag: "--port", env: "SIEVE_PORT", help: "TCP port to listen on (0 picks a free one)", default: 8080, parse: integer(0, 65535) },
  host: { flag: "--host", env: "SIEVE_HOST", help: "Interface to bind", default: "127.0.0.1", parse: nonEmpty },
  dataDir: { flag: "--data-dir", env: "SIEVE_DATA_DIR", help: "Directory of the SQLite database and runtime files", default: "./data", parse: nonEmpty },
  database: {
    flag: "--database",
    env: "SIEVE_DATABASE_URL",
    help: "postgres://user:password@host:port/db: keep all state in PostgreSQL, shared by every instance pointed at it (fleet mode); empty: the SQLite file in --data-dir",
    default: "",
    parse: (raw: string) => postgresUrl(raw),
  },
  upstreamUrl: {
    flag: "--upstream-url",
    env: "SIEVE_UPSTREAM_URL",
    help: "OpenAI-compatible provider base URL",
    default: "https://api.openai.com/v1",
    parse: httpUrl,
  },
  anthropicUpstreamUrl: {
    flag: "--anthropic-upstream-url",
    env: "SIEVE_ANTHROPIC_UPSTREAM_URL",
    help: "Anthropic Messages API base URL (POST /v1/messages and the other Anthropic paths are forwarded there)",
    default: "https://api.anthropic.com",
    parse: httpUrl,
  },
  config: {
    flag: "--config",
    env: "SIEVE_CONFIG",
    help: "A routing file (YAML or JSON): targets, routes, retries, fallbacks, load balancing, circuit breakers; reloaded on SIGHUP and when it changes (README: Routing)",
    default: "",
    defaultLabel: "none: each API goes to its upstream URL above",
    parse: nonEmpty,
  },
  otlpEndpoint: {
    flag: "--otlp-endpoint",
    env: "SIEVE_OTLP_ENDPOINT",
    help: "OpenTelemetry traces over OTLP/HTTP to this base URL (/v1/traces is appended); the standard OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT turn them on too (docs/usage-and-budgets.md, Traces)",
    default: "",
    defaultLabel: "off, unless an OTEL_EXPORTER_OTLP_* endpoint is set",
    parse: (raw: string) => (raw.trim() ? httpUrl(raw.trim()) : ""),
  },
  secretKey: {
    flag: "--secret-key",
    env: "SIEVE_SECRET_KEY",
    help: "32 bytes (64 hex characters or base64) that seal workspace routing secrets at rest; give every instance of a fleet the same one",
    default: "",
    defaultLabel: "a random key kept in <data-dir>/secret.key (SQLite); none on PostgreSQL",
    parse: (raw: string) => {
      if (!raw.trim()) return "";
      if (!parseSecretKey(raw)) throw new OptionValueError("expected 32 bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)");
      return raw.trim();
    },
  },
  modelDir: {
    flag: "--model-dir",
    env: "SIEVE_MODEL_DIR",
    help: "Embedding model folder in the transformers.js layout (config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx or onnx/model.onnx)",
    default: "",
    defaultLabel: "the embedded all-MiniLM-L6-v2",
    parse: nonEmpty,
  },
  logLevel: { flag: "--log-level", env: "SIEVE_LOG_LEVEL", help: "debug | info | warn | error | silent", default: "info" as LogLevel, parse: oneOf(...LOG_LEVELS) },
  embedPrecision: {
    flag: "--embed-precision",
    env: "SIEVE_EMBED_PRECISION",
    help: "int8 | fp32 model weights for the embedder",
    default: "int8" as "int8" | "fp32",
    parse: oneOf("int8", "fp32"),
  },
  embedBackend: {
    flag: "--embed-backend",
    env: "SIEVE_EMBED_BACKEND",
    help: "auto | native | wasm: ONNX Runtime for the embedding model; auto uses the native library where it loads (several times faster) and falls back to WASM with one log line saying why",
    default: "auto" as "auto" | "native" | "wasm",
    parse: oneOf("auto", "native", "wasm"),
  },
  inferenceThreads: {
    flag: "--inference-threads",
    env: "SIEVE_INFERENCE_THREADS",
    help: "Worker threads running the embedding model (each holds its own copy of the model, ~25 MB int8)",
    default: Math.max(1, availableParallelism()),
    defaultLabel: "the available cores",
    parse: integer(1, 256),
  },
  upstreamTimeoutMs: {
    flag: "--upstream-timeout-ms",
    env: "SIEVE_UPSTREAM_TIMEOUT_MS",
    help: "Time allowed for the provider's response headers before 504",
    default: 120_000,
    parse: integer(1, 3_600_000),
  },
  maxBodyBytes: {
    flag: "--max-body-bytes",
    env: "SIEVE_MAX_BODY_BYTES",
    help: "Largest accepted proxy request body (413 above)",
    default: 10 * 1024 * 1024,
    parse: integer(1024, 1024 * 1024 * 1024),
  },
  maxResponseBytes: {
    flag: "--max-response-bytes",
    env: "SIEVE_MAX_RESPONSE_BYTES",
    help: "Most bytes read from the provider for one chat, responses or messages answer, streamed or not (502 naming the flag, or the stream's error event, above)",
    default: 64 * 1024 * 1024,
    parse: integer(1024, 4 * 1024 * 1024 * 1024),
  },
  maxSseEventBytes: {
    flag: "--max-sse-event-bytes",
    env: "SIEVE_MAX_SSE_EVENT_BYTES",
    help: "Longest single server-sent event in a provider's stream (the stream's error event above)",
    default: 1024 * 1024,
    parse: integer(1024, 1024 * 1024 * 1024),
  },
  maxUploadBytes: {
    flag: "--max-upload-bytes",
    env: "SIEVE_MAX_UPLOAD_BYTES",
    help: "Largest accepted document upload (413 above)",
    default: 50 * 1024 * 1024,
    parse: integer(1024, 4 * 1024 * 1024 * 1024),
  },
  maxPendingDocuments: {
    flag: "--max-pending-documents",
    env: "SIEVE_MAX_PENDING_DOCUMENTS",
    help: "Most documents waiting to be processed on this server, uploads in progress included (503 with Retry-After above)",
    default: 500,
    parse: integer(1, 1_000_000),
  },
  maxPendingDocumentsPerWorkspace: {
    flag: "--max-pending-documents-per-workspace",
    env: "SIEVE_MAX_PENDING_DOCUMENTS_PER_WORKSPACE",
    help: "Most documents of one workspace waiting to be processed, across a fleet (429 with Retry-After above)",
    default: 100,
    parse: integer(1, 1_000_000),
  },
  maxJsonDepth: {
    flag: "--max-json-depth",
    env: "SIEVE_MAX_JSON_DEPTH",
    help: "Deepest nesting of arrays/objects accepted in a JSON body (400 above)",
    default: 64,
    parse: integer(2, 10_000),
  },
  maxJsonValues: {
    flag: "--max-json-values",
    env: "SIEVE_MAX_JSON_VALUES",
    help: "Most JSON values (objects, arrays, strings, numbers…) in a proxied chat, responses or messages request body (413 above)",
    default: 50_000,
    parse: integer(100, 100_000_000),
  },
  bodyTimeoutMs: {
    flag: "--body-timeout-ms",
    env: "SIEVE_BODY_TIMEOUT_MS",
    help: "Time allowed to receive a whole request body (408 and the connection closed after)",
    default: 30_000,
    parse: integer(100, 3_600_000),
  },
  allowUpstreamHosts: {
    flag: "--allow-upstream-hosts",
    env: "SIEVE_ALLOW_UPSTREAM_HOSTS",
    help:
      "Non-public provider hosts a workspace's upstream_url may use, comma-separated: host names (llm.internal, *.corp.example), " +
      "IP addresses or CIDR ranges (10.0.0.0/8, ::1), or * for any (default: public addresses only; --upstream-url itself is always allowed)",
    default: "",
    defaultLabel: "none",
    parse: upstreamHostList,
  },
  signup: {
    flag: "--signup",
    env: "SIEVE_SIGNUP",
    help:
      "Dashboard sign-up: open (anyone who reaches the server), first-only (only while no account exists: the operator's), closed. " +
      "The first account on a server whose only workspace has keys but no account joins that workspace",
    default: "open" as "open" | "first-only" | "closed",
    parse: oneOf("open", "first-only", "closed"),
  },
  loginMaxFailures: {
    flag: "--login-max-failures",
    env: "SIEVE_LOGIN_MAX_FAILURES",
    help: "Failed logins per account within 15 minutes before further attempts get 429 (a client address may fail 4x as often)",
    default: 5,
    parse: integer(1, 1_000_000),
  },
  maxDecompressedBytes: {
    flag: "--max-decompressed-bytes",
    env: "SIEVE_MAX_DECOMPRESSED_BYTES",
    help: "Most bytes one PDF's Flate streams may inflate to, counted while inflating (413 above)",
    default: DEFAULT_DECOMPRESSION_LIMITS.maxDecompressedBytes,
    parse: integer(1024 * 1024, 4 * 1024 * 1024 * 1024),
  },
  maxDocxXmlBytes: {
    flag: "--max-docx-xml-bytes",
    env: "SIEVE_MAX_DOCX_XML_BYTES",
    help: "Most bytes a DOCX's XML parts may inflate to, counted while inflating (413 above; the parser's thread holds about 100 times this while parsing)",
    default: DEFAULT_DECOMPRESSION_LIMITS.maxDocxXmlBytes,
    parse: integer(1024 * 1024, 4 * 1024 * 1024 * 1024),
  },
  ocrLanguages: {
    flag: "--ocr-languages",
    env: "SIEVE_OCR_LANGUAGES",
    help: "Languages OCR reads scanned pages and images in, Tesseract codes joined with + (eng+deu); each needs its <code>.traineddata.gz in --ocr-data-dir unless built in (eng)",
    default: "eng",
    parse: ocrLanguageList,
  },
  ocrDataDir: {
    flag: "--ocr-data-dir",
    env: "SIEVE_OCR_DATA_DIR",
    help: "Folder of extra Tesseract LSTM language data (<code>.traineddata.gz or .traineddata, e.g. from the npm package @tesseract.js-data/<code>, folder 4.0.0_best_int), searched before the built-in English",
    default: "",
    defaultLabel: "none (the built-in English only)",
    parse: nonEmpty,
  },
  parseTimeoutMs: {
    flag: "--parse-timeout-ms",
    env: "SIEVE_PARSE_TIMEOUT_MS",
    help: "Time one PDF or DOCX may take to be read in the parser's thread before it is stopped (422 parse_timeout)",
    default: 30_000,
    parse: integer(1, 3_600_000),
  },
  parseTimeoutPerOcrPageMs: {
    flag: "--parse-timeout-per-ocr-page-ms",
    env: "SIEVE_PARSE_TIMEOUT_PER_OCR_PAGE_MS",
    help: "Time added to --parse-timeout-ms for each page a parse reads by OCR (a scanned page costs seconds, a text page milliseconds); one parse gets 1 h at most",
    default: 20_000,
    parse: integer(0, 3_600_000),
  },
  maxParseMemoryBytes: {
    flag: "--max-parse-memory-bytes",
    env: "SIEVE_MAX_PARSE_MEMORY_BYTES",
    help: "Most the process's resident memory may grow while one PDF or DOCX is read before the parser's thread is stopped (422 parse_memory_exceeded)",
    default: 2 * 1024 * 1024 * 1024,
    parse: integer(1024 * 1024, 1024 * 1024 * 1024 * 1024),
  },
  maxCompressionRatio: {
    flag: "--max-compression-ratio",
    env: "SIEVE_MAX_COMPRESSION_RATIO",
    help: "Largest inflated/compressed ratio of one DOCX part or PDF stream beyond its first MiB (422 above)",
    default: DEFAULT_DECOMPRESSION_LIMITS.maxCompressionRatio,
    parse: integer(2, 100_000),
  },
  evidenceFlushMs: {
    flag: "--evidence-flush-ms",
    env: "SIEVE_EVIDENCE_FLUSH_MS",
    help: "Interval of the background evidence writer (worst-case loss on a hard crash)",
    default: 200,
    parse: integer(10, 60_000),
  },
  shutdownGraceMs: {
    flag: "--shutdown-grace-ms",
    env: "SIEVE_SHUTDOWN_GRACE_MS",
    help: "How long in-flight requests may finish after SIGTERM/SIGINT",
    default: 10_000,
    parse: integer(0, 600_000),
  },
  rateLimitRpm: {
    flag: "--rate-limit-rpm",
    env: "SIEVE_RATE_LIMIT_RPM",
    help: "Requests per minute per workspace, shared by all its API keys (0: no limit): the default of the requests_per_minute limit (docs/usage-and-budgets.md), which the routing file's limits: and each workspace's own setting override",
    default: 0,
    parse: integer(0, 1_000_000),
  },
  firewall: {
    flag: "--firewall",
    env: "SIEVE_FIREWALL",
    help: "Run the semantic firewall stage on proxied requests",
    default: true,
    parse: bool,
  },
  firewallMode: {
    flag: "--firewall-mode",
    env: "SIEVE_FIREWALL_MODE",
    help: "inline: a request reaches the provider only after the input firewall allowed it (the spec's order). parallel: the cache and the provider start while the firewall decides; nothing is answered before the verdict, and a block aborts the provider call (which the provider may still bill)",
    default: "inline" as "inline" | "parallel",
    parse: oneOf("inline", "parallel"),
  },
  firewallDocumentChunks: {
    flag: "--firewall-document-chunks",
    env: "SIEVE_FIREWALL_DOCUMENT_CHUNKS",
    help: "Scan every new document chunk on the firewall's data channel (chunk flags, metadata.injection); costs inference per chunk (docs/documents.md)",
    default: true,
    parse: bool,
  },
  firewallModelDir: {
    flag: "--firewall-model-dir",
    env: "SIEVE_FIREWALL_MODEL_DIR",
    help: "A model folder of the firewall's own (int8; e.g. built by npm run train:firewall); refit the calibration for it with npm run fit:firewall",
    default: "",
    defaultLabel: "the general model, shared with the cache",
    parse: nonEmpty,
  },
  firewallWindowBudget: {
    flag: "--firewall-window-budget",
    env: "SIEVE_FIREWALL_WINDOW_BUDGET",
    help: "Tokens of new text windows the firewall embeds per request; longer texts are sampled, cue words first (0: no limit)",
    default: 128,
    parse: integer(0, 1_000_000),
  },
  cache: {
    flag: "--cache",
    env: "SIEVE_CACHE",
    help: "Run the response cache stage on proxied requests",
    default: true,
    parse: bool,
  },
  metricsPublic: {
    flag: "--metrics-public",
    env: "SIEVE_METRICS_PUBLIC",
    help: "Serve GET /metrics to any client (default: loopback clients only, and never a request relayed by a proxy)",
    default: false,
    parse: bool,
  },
  bootstrapKey: {
    flag: "--bootstrap-key",
    env: "SIEVE_BOOTSTRAP_KEY",
    help: "On an empty data dir, create a workspace and key and print them",
    default: false,
    parse: bool,
  },
} satisfies Record<string, OptionSpec<unknown>>;

export type ServeOptionName = keyof typeof serveOptions;
export { OptionValueError };
