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
  upstreamUrl: {
    flag: "--upstream-url",
    env: "SIEVE_UPSTREAM_URL",
    help: "OpenAI-compatible provider base URL",
    default: "https://api.openai.com/v1",
    parse: httpUrl,
  },
  modelDir: {
    flag: "--model-dir",
    env: "SIEVE_MODEL_DIR",
    help: "transformers.js feature-extraction model folder",
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
  documentEmbedding: {
    flag: "--document-embedding",
    env: "SIEVE_DOCUMENT_EMBEDDING",
    help: "process | inline: embed document chunks in a child process (proxied requests never wait behind a document; ~370 MB more while documents are processed) or in the server's own thread",
    default: "process" as "process" | "inline",
    parse: oneOf("process", "inline"),
  },
  allowRemoteModels: {
    flag: "--allow-remote-models",
    env: "SIEVE_ALLOW_REMOTE_MODELS",
    help: "Let --model-dir name a Hugging Face hub model id that is downloaded (off: never any download)",
    default: false,
    parse: bool,
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
  maxUploadBytes: {
    flag: "--max-upload-bytes",
    env: "SIEVE_MAX_UPLOAD_BYTES",
    help: "Largest accepted document upload (413 above)",
    default: 50 * 1024 * 1024,
    parse: integer(1024, 4 * 1024 * 1024 * 1024),
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
    help: "Most bytes a DOCX's XML parts may inflate to, counted while inflating (413 above; the DOCX reader holds about 100 times this while parsing)",
    default: DEFAULT_DECOMPRESSION_LIMITS.maxDocxXmlBytes,
    parse: integer(1024 * 1024, 4 * 1024 * 1024 * 1024),
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
    help: "Requests per minute per API key (0: no limit)",
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
