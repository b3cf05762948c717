import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RunMode } from "../inference/lone-run-mode";
import type { Priority } from "../inference/priority-queue";

/** One text through the model on a worker: ~1.5 ms for a short text on native int8, ~200 ms for 256 tokens on WASM. */
const RUN_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const PRIORITIES: Priority[] = ["request", "bulk"];

export type PoolState = { queued: Record<Priority, number>; busyWorkers: number; workers: number };

/**
 * The inference pool's metrics. The pool is one per process, shared by every server in it, so
 * its metrics live in a registry of their own that each server's /metrics adds to its own.
 * Queue depth and workers are read when scraped; run times are recorded per text.
 */
export class InferenceMetrics {
  readonly registry = new Registry();
  readonly #seconds: Histogram<"model" | "priority">;
  readonly #loneRuns: Counter<"mode">;

  constructor(state: () => PoolState) {
    this.#seconds = new Histogram({
      name: "sieve_inference_seconds",
      help: "Time one text ran on an inference worker (queue wait excluded), by model and priority (request: proxy and API texts; bulk: document chunks)",
      labelNames: ["model", "priority"],
      buckets: RUN_BUCKETS,
      registers: [this.registry],
    });
    this.#loneRuns = new Counter({
      name: "sieve_inference_lone_runs_total",
      help: "Short request-path texts that ran while nothing else did, by mode (wide: on every core; narrow: one thread, chosen when timed faster, e.g. on a busy host)",
      labelNames: ["mode"],
      registers: [this.registry],
    });
    const queue = new Gauge({
      name: "sieve_inference_queue_depth",
      help: "Texts waiting for an inference worker, by priority",
      labelNames: ["priority"],
      registers: [this.registry],
      collect: () => {
        const { queued } = state();
        for (const priority of PRIORITIES) queue.labels(priority).set(queued[priority]);
      },
    });
    const workers = new Gauge({
      name: "sieve_inference_workers",
      help: "Inference worker threads by state (busy: running a text, idle)",
      labelNames: ["state"],
      registers: [this.registry],
      collect: () => {
        const { busyWorkers, workers: total } = state();
        workers.labels("busy").set(busyWorkers);
        workers.labels("idle").set(total - busyWorkers);
      },
    });
  }

  countLoneRun(mode: RunMode): void {
    this.#loneRuns.labels(mode).inc();
  }

  /** The run-time series of one loaded model (e.g. all-MiniLM-L6-v2/int8), one per priority. */
  runTimers(model: string): Record<Priority, Histogram.Internal<string>> {
    return { request: this.#seconds.labels(model, "request"), bulk: this.#seconds.labels(model, "bulk") };
  }
}
