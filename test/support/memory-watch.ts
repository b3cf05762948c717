/**
 * Peak memory of a child process, measured by the kernel: VmHWM in /proc/<pid>/status, reset by
 * writing 5 to /proc/<pid>/clear_refs. A watchdog samples VmRSS and kills the child once it
 * passes a ceiling, so a test of a memory bound fails (instead of taking the machine down).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Subprocess } from "bun";

const MB = 1024 * 1024;

function statusKb(pid: number, field: "VmHWM" | "VmRSS"): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no ${field} for ${pid}`);
  return Number(match[1]);
}

export class MemoryWatch {
  readonly #child: Subprocess<"ignore", "pipe", "pipe">;
  readonly #timer: Timer;
  #ceilingMb = Infinity;
  killedAtMb: number | null = null;

  constructor(child: Subprocess<"ignore", "pipe", "pipe">) {
    this.#child = child;
    this.#timer = setInterval(() => {
      if (child.exitCode !== null || this.killedAtMb !== null) return;
      const rssMb = statusKb(child.pid, "VmRSS") / 1024;
      if (rssMb > this.#ceilingMb) {
        this.killedAtMb = Math.round(rssMb);
        child.kill("SIGKILL");
      }
    }, 5);
  }

  /** Starts a measurement: resets the peak and arms the watchdog at the current RSS + `allowedMb`. */
  start(allowedMb: number): number {
    writeFileSync(`/proc/${this.#child.pid}/clear_refs`, "5");
    const baseline = statusKb(this.#child.pid, "VmRSS") / 1024;
    this.#ceilingMb = baseline + allowedMb;
    return baseline;
  }

  /** Peak RSS in MB since start(); the ceiling if the watchdog had to kill the child. */
  peakMb(): number {
    if (this.killedAtMb !== null) return this.killedAtMb;
    return statusKb(this.#child.pid, "VmHWM") / 1024;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

export const megabytes = (bytes: number) => bytes / MB;
