import type { DataProtectionMetrics } from "../metrics/data-protection";
import { scanJson } from "./body-scan";
import type { StoredPolicy } from "./model";
import { Placeholders } from "./placeholders";
import { compilePolicy } from "./policy";
import { blockReason } from "./stage";

/**
 * `/v1/embeddings` for a provider's model: its `input` (a string or a list of strings) is scanned
 * before it is passed through. A block finding refuses the request; redact and mask findings are
 * replaced by placeholders (an embedding has no text to restore values in, so mask acts as redact).
 * Returns the reason of a block, or the body to forward (undefined: forward the original bytes).
 */
export async function protectEmbeddingsInput(json: unknown, stored: StoredPolicy | null, metrics: DataProtectionMetrics): Promise<{ blocked?: string; body?: string }> {
  if (!json || typeof json !== "object" || !("input" in json)) return {};
  const subject = { input: (json as { input: unknown }).input };
  const found = await scanJson(subject, compilePolicy(stored), new Placeholders(), (f) => f.action !== "log");
  for (const finding of found) metrics.record("input", finding.type, finding.action);
  const blocked = found.find((f) => f.action === "block");
  if (blocked) return { blocked: blockReason(blocked) };
  if (!found.some((f) => f.action !== "log")) return {};
  return { body: JSON.stringify({ ...json, input: subject.input }) };
}
