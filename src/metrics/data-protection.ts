import { Counter, Registry } from "prom-client";
import { ACTIONS, BUILTIN_TYPES } from "../data-protection/model";

const SIDES = ["input", "output"] as const;
export type ProtectionSide = (typeof SIDES)[number];

/**
 * Data protection findings by side (request or answer), entity type and action. A workspace's own
 * pattern names are counted under "custom": they stay out of the labels, and cannot grow the set.
 */
export class DataProtectionMetrics {
  readonly #findings: Counter<"side" | "type" | "action">;

  constructor(registry = new Registry()) {
    this.#findings = new Counter({
      name: "sieve_data_protection_findings_total",
      help: "Secrets and personal data found in proxied requests (input) and answers (output), by entity type (custom patterns as custom) and the action taken",
      labelNames: ["side", "type", "action"],
      registers: [registry],
    });
    for (const side of SIDES) for (const type of BUILTIN_TYPES) this.#findings.labels(side, type, "block").inc(0);
  }

  record(side: ProtectionSide, type: string, action: string): void {
    const label = (BUILTIN_TYPES as readonly string[]).includes(type) ? type : "custom";
    if ((ACTIONS as readonly string[]).includes(action)) this.#findings.labels(side, label, action).inc();
  }
}
