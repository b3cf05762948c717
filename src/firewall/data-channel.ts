/**
 * The data channel's decision rule. Text an application passes along as material (tool results,
 * documents, files: the dialect adapters mark it) should hold no instruction to an AI assistant
 * at all, so there the same calibrated score fires from a lower threshold: the built-in input
 * patterns fire on a data window when its score exceeds min(pattern threshold, DATA_CHANNEL.threshold).
 * The threshold is fitted by `bun scripts/fit/firewall-data-channel.ts` on training rows only (injections
 * inside constructed documents and tool outputs against the same carriers untouched), numbers in
 * models/sieve-firewall/data-channel.json. Same windows, same scores: no extra inference.
 */
import fitted from "../../models/sieve-firewall/data-channel.json";
import type { PatternHit, WindowScore } from "./scoring";

export type DataChannelRule = { threshold: number; fit?: Record<string, unknown> };

export const DATA_CHANNEL: DataChannelRule = fitted;

/**
 * The hit a data window adds: its best built-in pattern, when that scores above the data
 * channel's threshold without having fired at its own. A threshold of 1 (a workspace's way to
 * switch a pattern off by threshold) is kept.
 */
export function dataChannelHit(window: WindowScore, rule: DataChannelRule = DATA_CHANNEL): PatternHit | undefined {
  const best = window.best;
  if (!best || !best.pattern.builtIn || best.pattern.threshold >= 1) return undefined;
  const threshold = Math.min(best.pattern.threshold, rule.threshold);
  if (best.score <= threshold || window.fired.some((hit) => hit.pattern.id === best.pattern.id)) return undefined;
  return { ...best, pattern: { ...best.pattern, threshold } };
}
