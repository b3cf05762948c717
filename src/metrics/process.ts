import { monitorEventLoopDelay } from "node:perf_hooks";
import { Gauge, type Registry } from "prom-client";
import { VERSION } from "../version";

/**
 * Sampling interval of the event-loop monitor. Idle, it cost ~0.9 ms of CPU per second at 100 ms
 * (~1.5 at 50 ms, ~2.5 at 20 ms); a stall longer than the interval is caught whatever it is.
 */
const LAG_RESOLUTION_MS = 100;

/**
 * Process basics, read when scraped: resident memory, start time and uptime, the build's version,
 * and the event loop's lag since the previous scrape (a timer that fires late by this much;
 * any request waiting on the loop waited that long too). Standard `process_*` names where
 * Prometheus has them, so existing dashboards work.
 */
export class ProcessMetrics {
  readonly #lag: ReturnType<typeof monitorEventLoopDelay>;

  constructor(registry: Registry) {
    const startedAt = Date.now();
    this.#lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    this.#lag.enable();
    const lag = this.#lag;
    new Gauge({ name: "sieve_build_info", help: "Always 1; the version of this Sieve build", labelNames: ["version"], registers: [registry] }).labels(VERSION).set(1);
    const rss: Gauge = new Gauge({ name: "process_resident_memory_bytes", help: "Resident memory size in bytes", registers: [registry], collect: () => rss.set(process.memoryUsage.rss()) });
    new Gauge({ name: "process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds", registers: [registry] }).set(Math.round(Date.now() / 1000 - process.uptime()));
    const uptime: Gauge = new Gauge({ name: "sieve_uptime_seconds", help: "Seconds since this server started", registers: [registry], collect: () => uptime.set((Date.now() - startedAt) / 1000) });
    const p99: Gauge = new Gauge({
      name: "sieve_event_loop_lag_p99_seconds",
      help: "99th percentile of the event loop's lag since the previous scrape",
      registers: [registry],
      collect: () => p99.set(lag.count > 0 ? lag.percentile(99) / 1e9 : 0),
    });
    const max: Gauge = new Gauge({
      name: "sieve_event_loop_lag_max_seconds",
      help: "Largest event loop lag since the previous scrape",
      registers: [registry],
      // Collected after the p99 (registration order); the window starts again here.
      collect: () => {
        max.set(lag.count > 0 ? lag.max / 1e9 : 0);
        lag.reset();
      },
    });
  }

  close(): void {
    this.#lag.disable();
  }
}
