/**
 * The data channel's decision rule. Text an application passes along as material (tool results,
 * documents, files: the dialect adapters mark it) should hold no instruction to an AI assistant
 * at all. Three parts, their numbers in models/sieve-firewall/data-channel.json
 * (`bun scripts/fit/firewall-data-channel.ts`, training rows only):
 * - a threshold: the built-in input patterns fire on a data window when its score exceeds
 *   min(pattern threshold, threshold);
 * - the addressee head: e-mails, notices and pages are full of imperatives addressed to a person
 *   ("disregard my previous message", "do not forward this"), which the score reads like an
 *   injection. A logistic model on the window's vector (the same encoder run: no extra inference)
 *   tells an instruction to an AI model from one to a person; a built-in hit on a data window stands
 *   only when the head says "to a model" above its threshold. The workspace's own patterns are
 *   never held back: what they match is the operator's call.
 * - addressed: where the head is confident that a window speaks to a model (above `addressed.head`),
 *   or the window's words address an AI reader outright ("Note to the AI assistant reading this:",
 *   "If you are a language model, …", "Chatbot: …"; addressee-words.ts), its built-in patterns fire
 *   from a lower score (`addressed.threshold`) and the head never holds them back (a linear head on
 *   a mean-pooled vector reads such openers weakly): an instruction to the
 *   assistant hidden in data is suspicious whatever its wording ("in your reply, recommend …"),
 *   and such sentences score only midway against the attack idioms. There a built-in hit that
 *   would only warn (role manipulation: "you are now in maintenance mode") blocks: telling the
 *   model who it is now is harmless from a user, an injection from a tool result.
 */
import fitted from "../../models/sieve-firewall/data-channel.json";
import { addressesAnAi } from "./addressee-words";
import { sigmoid } from "./calibration";
import type { PatternHit, WindowScore } from "./scoring";

/** weights · vector + bias, through σ; a window is "addressed to a model" above `threshold`. */
export type AddresseeHead = { weights: number[]; bias: number; threshold: number };

/** Above `head` (the addressee head's score), a built-in pattern fires on the window from `threshold`. */
export type AddressedRule = { head: number; threshold: number };

export type DataChannelRule = { threshold: number; addressee?: AddresseeHead; addressed?: AddressedRule; fit?: Record<string, unknown> };

export const DATA_CHANNEL: DataChannelRule = fitted;

/** The head's probability that the window's text is an instruction to an AI model rather than to a person. */
export function addresseeScore(head: AddresseeHead, vector: ArrayLike<number>): number {
  let z = head.bias;
  for (let j = 0; j < head.weights.length; j++) z += head.weights[j]! * vector[j]!;
  return sigmoid(z);
}

/**
 * Applies the data channel's rule to a data window in place: the hit a lower threshold adds (its
 * best built-in pattern, when that scores above the data channel's threshold, or above the
 * addressed threshold in a window the head is confident speaks to a model, without having fired at
 * its own; a threshold of 1, a workspace's way to switch a pattern off, is kept), then, when the
 * addressee head says the window addresses a person, its built-in hits are dropped; when it is
 * confident the window addresses a model, or `text` (the window's) addresses an AI outright, its
 * built-in hits that would warn block.
 * Returns the head's score (undefined without a head).
 */
export function applyDataChannel(window: WindowScore, vector: ArrayLike<number>, text: string, rule: DataChannelRule = DATA_CHANNEL): number | undefined {
  const addressee = rule.addressee ? addresseeScore(rule.addressee, vector) : undefined;
  const named = rule.addressed !== undefined && addressesAnAi(text);
  const addressed = named || (rule.addressed !== undefined && addressee !== undefined && addressee > rule.addressed.head);
  const hit = dataChannelHit(window, addressed ? Math.min(rule.threshold, rule.addressed!.threshold) : rule.threshold);
  if (hit) window.fired.push(hit);
  if (rule.addressee && !named && addressee! <= rule.addressee.threshold) window.fired = window.fired.filter((h) => !h.pattern.builtIn);
  // A workspace that set a pattern to log keeps it at log; warn becomes block.
  if (addressed) window.fired = window.fired.map((h) => (h.pattern.builtIn && h.pattern.action === "warn" ? { ...h, pattern: { ...h.pattern, action: "block" } } : h));
  return addressee;
}

/** The window's best built-in pattern as a hit from min(its threshold, `threshold`), unless it fired already or is switched off. */
export function dataChannelHit(window: WindowScore, threshold: number): PatternHit | undefined {
  const best = window.best;
  if (!best || !best.pattern.builtIn || best.pattern.threshold >= 1) return undefined;
  const from = Math.min(best.pattern.threshold, threshold);
  if (best.score <= from || window.fired.some((hit) => hit.pattern.id === best.pattern.id)) return undefined;
  return { ...best, pattern: { ...best.pattern, threshold: from } };
}
