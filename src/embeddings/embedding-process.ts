/**
 * Document embeddings off the server's thread: a second embedder in a child process.
 *
 * ONNX Runtime's WASM build runs an inference synchronously on the calling thread: a 256-token
 * chunk holds the server's event loop for ~0.2 s, so every proxied request waits behind a
 * document being processed. A child process is scheduled by the OS beside the server instead.
 * (A Bun Worker would be lighter, but in Bun 1.4.5 a worker's ORT WASM load hangs once the main
 * thread has loaded ORT.)
 *
 * The child is the same executable (`sieve embed-worker`, or `bun src/main.ts embed-worker` in
 * development). It is started by the first batch and takes over once its model is loaded
 * (~1–2 s); until then, and whenever it is unavailable (it failed to start, died under a batch,
 * or got stuck), batches run on the server's own embedder as before, so a small upload is never slower
 * than inline and nothing is lost. It exits after IDLE_EXIT_MS without work, since it holds a
 * second copy of the model (~370 MB), and whenever its parent goes away.
 */
import { resolve } from "node:path";
import type { Subprocess } from "bun";
import type { Config } from "../config";
import type { Logger } from "../logging/logger";
import { assetPaths } from "../runtime/assets";
import type { DocumentEmbedding } from "../runtime/context";
import type { WorkerReply, WorkerRequest } from "./embedding-worker";

/** An idle child is stopped after this long; the next document starts a new one. */
export const IDLE_EXIT_MS = 60_000;
/**
 * A child that has not answered a batch (≤ 1,200 characters, about a second of work) or loaded
 * its model in this long is stuck, not slow: it is killed and the work goes inline.
 */
export const STUCK_MS = 60_000;

type Embed = (texts: string[]) => Promise<Float32Array[]>;
type Pending = { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void };

class ProcessExited extends Error {}

export class EmbeddingProcess implements DocumentEmbedding {
  readonly #config: Config;
  readonly #log: Logger;
  readonly #inline: Embed;
  #child: Subprocess | undefined;
  #ready = false;
  /** Set when the child could not load its model: it would fail the same way again. */
  #broken = false;
  #stopped = false;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #idleExitMs: number;
  readonly #stuckBatchMs: number;

  constructor(config: Config, log: Logger, inline: Embed, options: { idleExitMs?: number; stuckBatchMs?: number } = {}) {
    this.#config = config;
    this.#log = log;
    this.#inline = inline;
    this.#idleExitMs = options.idleExitMs ?? IDLE_EXIT_MS;
    this.#stuckBatchMs = options.stuckBatchMs ?? STUCK_MS;
  }

  /** The child's process id while one runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** True once a child has its model loaded and takes the batches. */
  get ready(): boolean {
    return this.#ready;
  }

  /** Vectors for texts, identical whichever side computes them (same model, each text alone). */
  async embedMany(texts: string[]): Promise<Float32Array[]> {
    if (this.#stopped || this.#broken) return this.#inline(texts);
    clearTimeout(this.#idleTimer);
    const child = this.#start();
    try {
      if (!this.#ready) return await this.#inline(texts);
      return await this.#request(child, texts);
    } catch (error) {
      if (error instanceof ProcessExited) return this.#inline(texts);
      throw error;
    } finally {
      this.#armIdleExit();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#idleTimer);
    const child = this.#child;
    if (!child) return;
    child.kill();
    await child.exited;
  }

  /** Stops a loaded child once nothing has been asked of it for idleExitMs (a loading one gets there first). */
  #armIdleExit(): void {
    clearTimeout(this.#idleTimer);
    const child = this.#child;
    if (!child || !this.#ready || this.#pending.size > 0) return;
    this.#idleTimer = setTimeout(() => {
      if (this.#child === child && this.#pending.size === 0) child.kill();
    }, this.#idleExitMs);
    this.#idleTimer.unref();
  }

  async #request(child: Subprocess, texts: string[]): Promise<Float32Array[]> {
    const id = this.#nextId++;
    const result = new Promise<Float32Array[]>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    child.send({ type: "embed", id, texts } satisfies WorkerRequest);
    const watchdog = this.#killIfStuck(child, "answering a batch", this.#stuckBatchMs);
    try {
      return await result;
    } finally {
      clearTimeout(watchdog);
    }
  }

  /** Kills the child if it is still there after ms (its exit then sends the work inline). */
  #killIfStuck(child: Subprocess, doing: string, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      if (this.#child !== child) return;
      this.#log.warn("document embedding process stuck; killed, documents are embedded in the server's thread until a new one is ready", { pid: child.pid, doing });
      child.kill("SIGKILL");
    }, ms);
    timer.unref();
    return timer;
  }

  #start(): Subprocess {
    if (this.#child) return this.#child;
    let loading: ReturnType<typeof setTimeout> | undefined;
    const child = Bun.spawn(workerCommand(), {
      stdio: ["ignore", "inherit", "inherit"],
      serialization: "advanced",
      ipc: (message: WorkerReply) => {
        if (message.type === "ready") {
          clearTimeout(loading);
          this.#ready = true;
          this.#log.info("document embedding process ready", { pid: child.pid });
          this.#armIdleExit();
          return;
        }
        if (message.type === "failed") {
          clearTimeout(loading);
          this.#broken = true;
          this.#log.warn("document embedding process could not load the model; documents are embedded in the server's thread", { error: message.error });
          child.kill();
          return;
        }
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.type === "vectors") pending?.resolve(message.vectors);
        else pending?.reject(new Error(message.error));
      },
    });
    this.#child = child;
    child.send({ type: "init", config: this.#config } satisfies WorkerRequest);
    loading = this.#killIfStuck(child, "loading the model", STUCK_MS);
    void child.exited.then((code) => {
      clearTimeout(loading);
      if (this.#child === child) {
        this.#child = undefined;
        this.#ready = false;
      }
      for (const pending of this.#pending.values()) pending.reject(new ProcessExited(`the document embedding process exited (code ${code})`));
      this.#pending.clear();
      this.#log.info("document embedding process exited", { pid: child.pid, code });
    });
    return child;
  }
}

/** The running executable again: the binary itself, or Bun with this checkout's entry point. */
function workerCommand(): string[] {
  if (assetPaths().embedded) return [process.execPath, "embed-worker"];
  return [process.execPath, resolve(import.meta.dir, "../main.ts"), "embed-worker"];
}
