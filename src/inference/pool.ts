/**
 * The process's inference engine: N worker threads, each with its own ONNX Runtime session per
 * loaded model (one intra-op thread each), fed from one priority queue. The main thread only
 * tokenises; it never runs a model, so the event loop stays free while every core computes.
 *
 * Under load each worker computes one text per core; document chunks (bulk) leave one worker
 * free when there are several. A short request-path text that arrives while nothing else is
 * running or queued (a fresh prompt at low concurrency, its answer's output check) runs alone on
 * the first worker's wide session, on every core, while the others wait, so the cores are never
 * oversubscribed; LoneRunMode falls back to one thread when that measures faster (a busy host)
 * or when other texts keep arriving while lone texts run (they would wait for it).
 *
 * Each text runs alone and unpadded (see Embedder.embedMany), so which worker computes it, or
 * what else is queued, never changes its vector.
 */
import { availableParallelism } from "node:os";
import { basename, join } from "node:path";
import type { Histogram } from "prom-client";
import { Embedder } from "../embeddings/embedder.ts";
import { EmbedderLoadError } from "../embeddings/errors.ts";
import { checkModelFolder, onnxFile } from "../embeddings/model-files.ts";
import { InferenceMetrics } from "../metrics/inference.ts";
import { LoneRunMode } from "./lone-run-mode.ts";
import { PriorityQueue, type Priority } from "./priority-queue.ts";
import type { Backend, BackendChoice, FromWorker, RuntimeFiles, ToWorker } from "./protocol.ts";

export type { Backend, BackendChoice, RuntimeFiles } from "./protocol.ts";
export type { Priority } from "./priority-queue.ts";

export type InferencePoolOptions = {
  /** Worker threads (default: the cores available to this process). */
  threads?: number;
  /** auto: native where its library loads, else WASM (the reason is in `fallback`). */
  backend?: BackendChoice;
  files: RuntimeFiles;
  /** The worker script; the compiled binary passes its embedded copy. */
  workerUrl?: string | URL;
};

/** A folder in the transformers.js layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model[_quantized].onnx. */
export type ModelFolder = { modelDir: string; quantized: boolean };

export type PoolInfo = { backend: Backend; threads: number; fallback?: string };

/** What a worker reports for a loaded model: its vector size and its extra pooled outputs. */
type LoadedModel = { dimensions: number; views: string[] };

type Job = {
  model: number;
  ids: Int32Array;
  priority: Priority;
  runTimer: Histogram.Internal<string>;
  /** Told how long the run took (lone runs: see LoneRunMode). */
  timed?: (ms: number) => void;
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
};

/**
 * Texts of at most this many tokens may wait inside a worker behind one other such text (native:
 * ~2 ms for 16 tokens, ~7 ms for 64): the wait they can add is bounded, unlike behind a
 * 256-token chunk (~30 ms).
 */
const SHORT_TEXT_TOKENS = 64;

const isShort = (job: Job) => job.priority === "request" && job.ids.length <= SHORT_TEXT_TOKENS;

const poolStopped = () => new Error("the inference pool was stopped");

export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

export class InferencePool {
  readonly threads: number;
  readonly #choice: BackendChoice;
  readonly #files: RuntimeFiles;
  readonly #workerUrl: string | URL;
  readonly #slots: WorkerSlot[] = [];
  readonly #queue = new PriorityQueue<Job>();
  /** onnx file per model id, in load order (undefined: failed to load): a replacement worker loads them all again. */
  readonly #models: (string | undefined)[] = [];
  readonly #embedders = new Map<string, Promise<Embedder>>();
  /** Run-time series per model id, per priority. */
  readonly #runTimers: Record<Priority, Histogram.Internal<string>>[] = [];
  readonly metrics = new InferenceMetrics(() => ({
    queued: { request: this.#queue.sizeOf("request"), bulk: this.#queue.sizeOf("bulk") },
    busyWorkers: this.#slots.filter((slot) => slot.busy).length,
    workers: this.#slots.length,
  }));
  #info: PoolInfo | undefined;
  /** Intra-op threads of the first worker's wide sessions; 0: none (one core or one thread, or WASM). */
  #wideThreads = 0;
  readonly #loneMode = new LoneRunMode();
  /** The lone text running, if any: whether another request-path text arrived meanwhile (see LoneRunMode). */
  #loneRun: { overlapped: boolean } | undefined;
  /** A dispatch is due at the end of this turn (see #submit). */
  #dispatchDue = false;
  #stopped = false;
  /** Resolves once the first worker has settled the backend and the others are starting. */
  readonly started: Promise<PoolInfo>;

  constructor(options: InferencePoolOptions) {
    this.threads = Math.max(1, Math.floor(options.threads ?? defaultThreads()));
    this.#choice = options.backend ?? "auto";
    this.#files = options.files;
    this.#workerUrl = options.workerUrl ?? new URL("./worker.ts", import.meta.url);
    this.started = this.#start();
    this.started.catch(() => {}); // reported through loadModel
  }

  /** The backend in use and why WASM was chosen under auto; undefined until the first worker is up. */
  get info(): PoolInfo | undefined {
    return this.#info;
  }

  /**
   * Loads a model folder into every worker and returns its embedder. The same folder and
   * precision loaded twice give the same embedder; different folders live side by side.
   */
  loadModel(folder: ModelFolder): Promise<Embedder> {
    const key = `${folder.modelDir}\0${folder.quantized}`;
    let embedder = this.#embedders.get(key);
    if (!embedder) {
      embedder = this.#load(folder);
      this.#embedders.set(key, embedder);
      embedder.catch(() => this.#embedders.delete(key));
    }
    return embedder;
  }

  /** Rejects queued work, lets each worker finish the text it is running, then ends the threads. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const error = poolStopped();
    for (const job of this.#queue.drain()) job.reject(error);
    await Promise.all(this.#slots.map((slot) => slot.terminate(error)));
  }

  async #start(): Promise<PoolInfo> {
    // One worker settles the backend (auto may fall back); the rest then start on that backend directly.
    const first = this.#spawn(this.#choice);
    this.#slots.push(first);
    const { backend, fallback } = await first.ready;
    for (let i = 1; i < this.threads; i++) this.#slots.push(this.#spawn(backend));
    // No more intra-op threads than the pool's own threads (its share of the cores) or the cores there are.
    const cores = Math.min(this.threads, availableParallelism());
    this.#wideThreads = backend === "native" && cores > 1 ? cores : 0;
    this.#info = { backend, threads: this.threads, fallback };
    return this.#info;
  }

  async #load({ modelDir, quantized }: ModelFolder): Promise<Embedder> {
    checkModelFolder(modelDir, quantized);
    const tokenizing = Embedder.tokenizerFor(modelDir);
    tokenizing.catch(() => {}); // awaited below, after the runtime
    const info = await this.started.catch((error: Error) => {
      throw new EmbedderLoadError(`the ${this.#choice} ONNX Runtime did not load: ${error.message}`);
    });
    const onnxPath = join(modelDir, onnxFile(quantized));
    const model = this.#models.push(onnxPath) - 1;
    this.#runTimers[model] = this.metrics.runTimers(`${basename(modelDir)}/${quantized ? "int8" : "fp32"}`);
    const loaded = await Promise.all(this.#slots.map((slot, at) => slot.load(model, onnxPath, this.#wideThreadsAt(at)))).catch((error: Error) => {
      this.#models[model] = undefined;
      throw new EmbedderLoadError(`cannot load ${onnxPath}: ${error.message}`);
    });
    return new Embedder(await tokenizing, {
      ...loaded[0]!,
      runtime: info,
      run: (ids, priority) => this.#submit(model, ids, priority),
    });
  }

  #submit(model: number, ids: Int32Array, priority: Priority): Promise<Float32Array[]> {
    if (this.#stopped) return Promise.reject(poolStopped());
    return new Promise((resolve, reject) => {
      this.#queue.push({ model, ids, priority, runTimer: this.#runTimers[model]![priority], resolve, reject }, priority);
      if (priority === "request" && this.#loneRun) this.#loneRun.overlapped = true;
      // Texts submitted together (a message's windows, an answer's) are queued together before any
      // is dispatched: the first of them must not look like a lone text and take every core.
      if (this.#dispatchDue) return;
      this.#dispatchDue = true;
      queueMicrotask(() => {
        this.#dispatchDue = false;
        this.#dispatch();
      });
    });
  }

  /**
   * Hands queued work to idle workers, request-path texts first. Bulk work (document chunks)
   * never occupies every worker when there are several: one stays free, so a request-path text
   * starts at once instead of behind a ~30 ms chunk, and the event loop keeps a core (with every
   * core on chunks, /healthz waited for the scheduler).
   *
   * When every worker is busy and short request texts are still queued, each worker running a
   * short request text is handed the next one as well: it starts the moment the first is done,
   * instead of after its reply has crossed to an event loop that may be busy with other requests
   * (fresh prompts at concurrency 8 on two cores: the machine busy 92% of the time instead of 86%).
   *
   * A short request-path text with nothing else running or queued may have every core (see the
   * file's comment); while it runs, everything else waits for it (one short run).
   */
  #dispatch(): void {
    if (this.#slots.some((slot) => slot.runningWide)) return;
    const lone = this.#takeLoneText();
    if (lone) {
      const mode = this.#loneMode.next(lone.ids.length);
      const run = (this.#loneRun = { overlapped: false });
      lone.timed = (ms) => {
        this.#loneRun = undefined;
        this.#loneMode.observe(mode, lone.ids.length, ms, run.overlapped);
      };
      this.metrics.countLoneRun(mode);
      return this.#slots[0]!.run(lone, mode === "wide");
    }
    const bulkSlots = Math.max(1, this.#slots.length - 1);
    let bulkRunning = this.#slots.filter((slot) => slot.runningBulk).length;
    for (const slot of this.#slots) {
      if (!slot.idle) continue;
      const job = bulkRunning < bulkSlots ? this.#queue.shift() : this.#queue.shiftRequest();
      if (!job) return;
      if (job.priority === "bulk") bulkRunning++;
      slot.run(job, false);
    }
    for (const slot of this.#slots) {
      const next = this.#queue.peekRequest();
      if (!next || !isShort(next)) return;
      if (slot.canTakeShortText) slot.run(this.#queue.shiftRequest()!, false);
    }
  }

  /** The one queued text, if it is short and request-path and every worker is idle (and wide sessions exist). */
  #takeLoneText(): Job | undefined {
    if (this.#wideThreads < 2 || this.#queue.size !== 1 || !this.#slots.every((slot) => slot.idle)) return undefined;
    const next = this.#queue.peekRequest();
    return next && isShort(next) ? this.#queue.shiftRequest() : undefined;
  }

  /** Only the first worker holds wide sessions. */
  #wideThreadsAt(slotIndex: number): number {
    return slotIndex === 0 ? this.#wideThreads : 0;
  }

  #spawn(backend: BackendChoice): WorkerSlot {
    const slot = new WorkerSlot(this.#workerUrl, backend, this.#files, {
      onIdle: () => this.#dispatch(),
      onCrash: (crashed, waiting) => {
        for (const job of waiting) {
          if (this.#stopped) job.reject(poolStopped());
          else this.#queue.push(job, job.priority);
        }
        const at = this.#slots.indexOf(crashed);
        if (at < 0 || this.#stopped) return;
        // A replacement takes its place and reloads every model; the crashed job was rejected.
        const replacement = this.#spawn(this.#info?.backend ?? backend);
        this.#slots[at] = replacement;
        this.#models.forEach((onnxPath, model) => onnxPath && void replacement.load(model, onnxPath, this.#wideThreadsAt(at)).catch(() => {}));
        this.#dispatch();
      },
    });
    return slot;
  }
}

/** One worker thread and what it is doing. */
class WorkerSlot {
  readonly #worker: Worker;
  readonly ready: Promise<{ backend: Backend; fallback?: string }>;
  /** Sent and not yet answered, in the order the worker runs them: the first is running. */
  #jobs: Job[] = [];
  /** The running job was sent to the wide session (every core); nothing is handed over behind it. */
  #wide = false;
  /** When the running job started (for a job handed over early: when the one before it ended). */
  #jobStarted = 0;
  /** Settles when every sent job is answered (or the worker fails). */
  #jobsDone = Promise.withResolvers<void>();
  #failed: Error | undefined;
  /** Model loads sent and not yet answered (terminate waits for them). */
  readonly #loads = new Map<number, PromiseWithResolvers<LoadedModel>>();
  readonly #started = Promise.withResolvers<{ backend: Backend; fallback?: string }>();

  constructor(
    url: string | URL,
    backend: BackendChoice,
    files: RuntimeFiles,
    private readonly events: { onIdle: () => void; onCrash: (slot: WorkerSlot, waiting: Job[]) => void },
  ) {
    this.ready = this.#started.promise;
    this.ready.catch(() => {});
    this.#worker = new Worker(url);
    // An idle pool must not keep the process alive; a running job does (see run).
    this.#worker.unref();
    this.#worker.onmessage = (event: MessageEvent<FromWorker>) => this.#receive(event.data);
    this.#worker.addEventListener("error", (event) => this.#crash(new Error(`inference worker failed: ${(event as ErrorEvent).message}`)));
    this.#send({ type: "init", backend, files });
  }

  get idle(): boolean {
    return this.#jobs.length === 0 && this.#failed === undefined;
  }

  get busy(): boolean {
    return this.#jobs.length > 0;
  }

  get runningWide(): boolean {
    return this.#wide && this.#jobs.length > 0;
  }

  get runningBulk(): boolean {
    return this.#jobs[0]?.priority === "bulk";
  }

  /** Running one short request text and nothing queued behind it. */
  get canTakeShortText(): boolean {
    return this.#jobs.length === 1 && this.#failed === undefined && isShort(this.#jobs[0]!);
  }

  load(model: number, onnxPath: string, wideThreads: number): Promise<LoadedModel> {
    if (this.#failed) return Promise.reject(this.#failed);
    const loading = Promise.withResolvers<LoadedModel>();
    this.#loads.set(model, loading);
    this.#send({ type: "load", model, onnxPath, wideThreads });
    return loading.promise;
  }

  run(job: Job, wide: boolean): void {
    if (this.#jobs.length === 0) {
      this.#wide = wide;
      this.#jobStarted = performance.now();
      this.#jobsDone = Promise.withResolvers<void>();
      this.#worker.ref();
    }
    this.#jobs.push(job);
    this.#send({ type: "run", model: job.model, ids: job.ids, wide });
  }

  /**
   * Ends the thread once its start-up, its model loads and its current run are answered:
   * terminating a thread in the middle of native work (loading the runtime, creating a session,
   * session.run) aborts the whole process (onnxruntime-node throws into a torn-down N-API env;
   * a SIGTERM in the first half-second after start did).
   */
  async terminate(error: Error): Promise<void> {
    await Promise.allSettled([this.#started.promise, ...[...this.#loads.values()].map((loading) => loading.promise)]);
    if (this.#jobs.length > 0) await this.#jobsDone.promise;
    this.#fail(error);
    this.#worker.terminate();
  }

  #send(message: ToWorker): void {
    this.#worker.postMessage(message);
  }

  #receive(message: FromWorker): void {
    switch (message.type) {
      case "ready":
        this.#started.resolve({ backend: message.backend, fallback: message.fallback });
        return;
      case "init-failed":
        this.#fail(new Error(message.error));
        this.#worker.terminate();
        return;
      case "loaded":
      case "load-failed": {
        const waiter = this.#loads.get(message.model);
        this.#loads.delete(message.model);
        if (message.type === "loaded") waiter?.resolve({ dimensions: message.dimensions, views: message.views });
        else waiter?.reject(new Error(message.error));
        return;
      }
      case "vectors":
      case "run-failed": {
        const job = this.#jobs.shift();
        const now = performance.now();
        if (message.type === "run-failed") job?.reject(new Error(message.error));
        else if (job) {
          const ms = now - this.#jobStarted;
          job.runTimer.observe(ms / 1000);
          job.timed?.(ms);
          job.resolve(message.vectors);
        }
        this.#jobStarted = now;
        if (this.#jobs.length === 0) {
          this.#jobsDone.resolve();
          this.#worker.unref();
        }
        this.events.onIdle();
      }
    }
  }

  #crash(error: Error): void {
    if (this.#failed) return;
    // Only the running job is lost with the thread; the one handed over behind it goes back to the queue.
    const waiting = this.#jobs.splice(1);
    this.#fail(error);
    this.#worker.terminate();
    this.events.onCrash(this, waiting);
  }

  /** Rejects everything waiting on this worker and takes it out of service. */
  #fail(error: Error): void {
    this.#failed ??= error;
    this.#started.reject(error);
    for (const waiter of this.#loads.values()) waiter.reject(error);
    this.#loads.clear();
    for (const job of this.#jobs) job.reject(error);
    this.#jobs = [];
    this.#jobsDone.resolve();
  }
}
