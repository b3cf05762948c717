import { parseAllowedHosts } from "./egress/allowed-hosts";
import { createApp, type App } from "./app";
import { withBodyDeadline } from "./http/body-deadline";
import { bodyLimitsOf } from "./http/bounded-body";
import { errorShapeFor, isStreamedPassthrough } from "./proxy/passthrough";
import { documentJobs } from "./documents/jobs";
import { isDocumentUpload } from "./documents/upload";
import type { Config } from "./config";
import { openStorage } from "./db/connection";
import type { Embedder } from "./embeddings/embedder";
import { EmbedderLoadError } from "./embeddings/errors";
import { checkModelFolder } from "./embeddings/model-files";
import { InferencePool } from "./inference/pool";
import { EvidenceWriter } from "./evidence/writer";
import { AfterResponse } from "./runtime/after-response";
import { CacheCounters } from "./cache/counters";
import { Metrics } from "./metrics/service";
import { VectorMemo } from "./embeddings/vector-memo";
import { Logger } from "./logging/logger";
import { assetPaths } from "./runtime/assets";
import type { AppContext } from "./runtime/context";
import { EmbedderSlot } from "./runtime/embedder-slot";
import { checkFirewallModel, firewallModel } from "./firewall/encoder";
import { LimitKeeper } from "./usage/limits";
import { startTracing } from "./telemetry/tracing";
import { UsageMeter } from "./usage/meter";
import { PriceBook } from "./usage/prices";
import type { ConfigFile } from "./routing/config-file";
import type { FileLimits } from "./usage/model";
import { onboardingHint } from "./tenancy/onboarding";
import { baseUrlWarning } from "./proxy/base-url-hints";
import { Breakers } from "./routing/breaker";
import { RoutingFileError } from "./routing/config-file";
import { RoutingFileSource } from "./routing/routing-file";
import { SecretKeySource } from "./routing/secret-box";
import { WorkspaceRoutes } from "./routing/workspace-routes";
import { UsageError } from "./config";
import { missingOcrLanguages, ocrFiles } from "./documents/parsing/ocr";

const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export type RunningServer = {
  url: string;
  port: number;
  ctx: AppContext;
  /** Every route the app registers (the OpenAPI test checks each is documented). */
  routes: App["routes"];
  /** Graceful: stop accepting, let in-flight requests finish (bounded), flush, close the DB. */
  stop: () => Promise<void>;
};

export type ServerOptions = {
  /** Use this embedder instead of loading one (tests share one across servers). */
  embedder?: Embedder;
  logSink?: (line: string) => void;
  /** The clock of the limits' windows (tests move it); default Date.now. */
  now?: () => number;
};

/**
 * The routing file's `prices:` as a PriceBook and its `limits:` with --rate-limit-rpm as the
 * workspace default it always was, made again only when the file is reloaded.
 */
function usageSettings(file: () => Omit<ConfigFile, "table"> | undefined, rateLimitRpm: number) {
  const none: Omit<ConfigFile, "table"> = { prices: {}, limits: {} };
  let seen: Omit<ConfigFile, "table"> | undefined;
  let book = new PriceBook();
  let limits: FileLimits = {};
  const refresh = () => {
    const current = file() ?? none;
    if (current === seen) return;
    seen = current;
    book = new PriceBook(current.prices);
    const workspace = { ...current.limits.workspace };
    if (rateLimitRpm > 0 && workspace.requests_per_minute === undefined) workspace.requests_per_minute = rateLimitRpm;
    limits = { ...current.limits, workspace };
  };
  return {
    prices: () => (refresh(), book),
    limits: () => (refresh(), limits),
  };
}

function modelDirOf(config: Config): string {
  return config.modelDir || assetPaths().modelDir;
}

/** A new inference pool with this configuration's backend and threads, on this build's runtime files. */
export function createInferencePool(config: Pick<Config, "embedBackend" | "inferenceThreads">): InferencePool {
  const assets = assetPaths();
  return new InferencePool({
    threads: config.inferenceThreads,
    backend: config.embedBackend,
    files: { nativeBinding: config.embedBackend === "wasm" ? undefined : assets.ortNativeBinding?.(), wasmMjs: assets.ortWasmMjs, wasm: assets.ortWasm },
    workerUrl: assets.inferenceWorker,
  });
}

let processPool: InferencePool | undefined;

/**
 * The process's one inference pool (threads = cores by default): every server, model and caller
 * in this process shares it. The first caller's backend and thread settings win.
 */
export function inferencePool(config: Config): InferencePool {
  return (processPool ??= createInferencePool(config));
}

/** Stops the process's pool if one was started (never starts one to stop it). */
export function stopInferencePool(): Promise<void> {
  return processPool?.stop() ?? Promise.resolve();
}

/** The general embedder, or another model folder (the firewall's encoder) in the same pool. */
export function loadEmbedder(config: Config, model = { modelDir: modelDirOf(config), quantized: config.embedPrecision === "int8" }): Promise<Embedder> {
  return inferencePool(config).loadModel(model);
}

/** A routing file that cannot be read or is invalid stops start-up with its problems (exit status 2). */
function openRoutingFile(config: Config, breakers: Breakers, log: Logger): RoutingFileSource {
  try {
    return new RoutingFileSource(config.config, { timeoutMs: config.upstreamTimeoutMs, env: process.env }, breakers, log);
  } catch (error) {
    if (error instanceof RoutingFileError) throw new UsageError(`--config ${error.message}`);
    throw error;
  }
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const assets = assetPaths();
  // A missing or corrupt model file stops start-up here, naming the file, before anything listens.
  if (!options.embedder) {
    if (assets.embedded && !config.modelDir && config.embedPrecision === "fp32") {
      throw new EmbedderLoadError("the fp32 model is not built into this executable (only int8 is): pass --model-dir with a model folder that has onnx/model.onnx, e.g. models/all-MiniLM-L6-v2 of a source checkout after `bun run convert-model`");
    }
    checkModelFolder(modelDirOf(config), config.embedPrecision === "int8");
  }
  checkFirewallModel(config);
  const missingOcr = missingOcrLanguages(ocrFiles(config));
  if (missingOcr.length > 0) throw new UsageError(`--ocr-languages: no OCR data for ${missingOcr.join(", ")} (<code>.traineddata.gz) in ${config.ocrDataDir || "--ocr-data-dir (not set)"} or built in (eng)`);
  const log = new Logger(config.logLevel, options.logSink);
  const breakers = new Breakers();
  const routingFile = config.config ? openRoutingFile(config, breakers, log) : undefined;
  const database = await openStorage({ dataDir: config.dataDir, databaseUrl: config.database || undefined, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
  const embedder = options.embedder ? EmbedderSlot.of(options.embedder) : new EmbedderSlot(() => loadEmbedder(config));
  const ownFirewallModel = firewallModel(config);
  const firewallEncoder = ownFirewallModel ? new EmbedderSlot(() => loadEmbedder(config, ownFirewallModel)) : embedder;
  const cacheIndex = database.signBitIndex;
  const metrics: Metrics = new Metrics({
    evidenceQueueLength: () => evidence.pending,
    inference: () => processPool?.metrics.registry,
    cacheIndex: cacheIndex && (() => cacheIndex.size),
    breakers,
    documents: () => documentJobs(ctx).work,
  });
  const evidence = new EvidenceWriter(database, log, config.evidenceFlushMs, metrics.database);
  const cacheCounters = new CacheCounters(log, config.evidenceFlushMs);
  const afterResponse = new AfterResponse(log);
  const vectors = new VectorMemo(() => embedder.require());
  const allowedUpstreamHosts = parseAllowedHosts(config.allowUpstreamHosts);
  const secretKeys = new SecretKeySource({ secretKey: config.secretKey, dataDir: config.dataDir, shared: database.shared });
  const routing = {
    file: routingFile,
    breakers,
    tenantBreakers: new Breakers(),
    workspaceRoutes: new WorkspaceRoutes(secretKeys, { timeoutMs: config.upstreamTimeoutMs, allowedHosts: allowedUpstreamHosts, log }),
    secretKeys,
  };
  const settings = usageSettings(() => routingFile?.usage, config.rateLimitRpm);
  const limits = new LimitKeeper(settings.limits, options.now);
  const usage = { meter: new UsageMeter(settings.prices, metrics.usage, limits, log), limits };
  const tracing = startTracing(config.otlpEndpoint, process.env);
  const ctx: AppContext = { config, log, database, embedder, firewallEncoder, vectors, evidence, afterResponse, cacheCounters, usage, tracing, allowedUpstreamHosts, metrics, routing, sessionTtlMs: SESSION_TTL_MS };

  const app = createApp(ctx, assets.docsUiScript);
  const server = Bun.serve({
    hostname: config.host,
    port: config.port,
    fetch: withBodyDeadline(app.fetch, config.bodyTimeoutMs, (url) => isStreamedPassthrough(url) || isDocumentUpload(url), bodyLimitsOf(app.routes), errorShapeFor),
    // Streams from a provider can pause for a long time between tokens; Bun's default is 10 s.
    // (Request bodies have their own, shorter deadline: --body-timeout-ms.)
    idleTimeout: 255,
    maxRequestBodySize: Math.max(config.maxBodyBytes, config.maxUploadBytes) + 1024 * 1024,
  });
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
  log.info("listening", { url, data_dir: config.dataDir, database: database.location, upstream_url: config.upstreamUrl });
  for (const line of await onboardingHint(database.db, config)) log.info(line);
  for (const [provider, url] of [["openai", config.upstreamUrl], ["anthropic", config.anthropicUpstreamUrl]] as const) {
    const warning = baseUrlWarning(provider, url);
    if (warning) log.warn(`provider base URL looks wrong: ${warning}`, { flag: provider === "openai" ? "--upstream-url" : "--anthropic-upstream-url" });
  }
  await documentJobs(ctx).resume();
  embedder.loaded.then(
    (loaded) => {
      const { backend, threads, fallback } = loaded.runtime;
      if (fallback) log.warn("inference on ONNX Runtime WASM", { reason: fallback });
      log.info("embedder ready", { model: loaded.modelName, dimensions: loaded.dimensions, precision: config.embedPrecision, backend, threads });
    },
    (error: Error) => log.error("embedder failed to load", { error: error.message }),
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down", { grace_ms: config.shutdownGraceMs });
      const drained = server.stop(false);
      const timedOut = await Promise.race([drained.then(() => false), Bun.sleep(config.shutdownGraceMs).then(() => true)]);
      if (timedOut) {
        log.warn("grace period over; closing remaining connections");
        await server.stop(true);
      }
      routingFile?.close();
      await documentJobs(ctx).stop();
      await afterResponse.idle();
      await evidence.close();
      await cacheCounters.close();
      await tracing?.shutdown();
      metrics.close();
      await database.close();
      log.info("stopped");
    })());

  return { url, port: server.port!, ctx, routes: app.routes, stop };
}
