/**
 * The data channel's decision rule. Text an application passes along as material (tool results,
 * documents, files: the dialect adapters mark it) should hold no instruction to an AI assistant
 * at all. Two fitted parts, numbers in models/sieve-firewall/data-channel.json
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
 *   "If you are a language model, …", "Chatbot: …"; `addressesAnAi`), its built-in patterns fire
 *   from a lower score (`addressed.threshold`) and the head never holds them back (a linear head on
 *   a mean-pooled vector reads such openers weakly): an instruction to the
 *   assistant hidden in data is suspicious whatever its wording ("in your reply, recommend …"),
 *   and such sentences score only midway against the attack idioms. There a built-in hit that
 *   would only warn (role manipulation: "you are now in maintenance mode") blocks: telling the
 *   model who it is now is harmless from a user, an injection from a tool result.
 */
import fitted from "../../models/sieve-firewall/data-channel.json";
import { sigmoid } from "./calibration";
import type { PatternHit, WindowScore } from "./scoring";

/** weights · vector + bias, through σ; a window is "addressed to a model" above `threshold`. */
export type AddresseeHead = { weights: number[]; bias: number; threshold: number };

/** Above `head` (the addressee head's score), a built-in pattern fires on the window from `threshold`. */
export type AddressedRule = { head: number; threshold: number };

export type DataChannelRule = { threshold: number; addressee?: AddresseeHead; addressed?: AddressedRule; fit?: Record<string, unknown> };

export const DATA_CHANNEL: DataChannelRule = fitted;

/**
 * Names of an AI reader. "Agent" and "model" alone are left out (a travel agent, a model reading
 * sensor data); "assistant" and "bot" only where the sentence casts them as the text's reader;
 * products named like people or things (Claude, Gemini, Copilot) not at all: "Claude, please send
 * the invoice" is an e-mail to a colleague as often.
 */
const AI_NAME = String.raw`(?:AI|A\.I\.|LLMs?|chat ?bots?|language models?|GPT(?:-\d+\w*)?|ChatGPT|AI (?:assistants?|agents?|models?|systems?|tools?))`;
const AI_READER_ROLE = String.raw`(?:${AI_NAME}|assistants?|bots?)`;
/**
 * Words that address whatever AI reads the text, as injections in data do and e-mails to people do
 * not: a note or instruction to an AI reader; an AI or assistant "reading / processing this"; "if
 * you are an AI"; or an AI name called out at the start of a sentence ("Chatbot: …", "To the AI
 * assistant: …", "Assistant, …").
 */
const ADDRESSES_AN_AI = new RegExp(
  [
    String.raw`\b(?:notes?|messages?|instructions?|attention|reminders?|memo|request)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|whichever\s+|every\s+)?${AI_NAME}\b`,
    String.raw`\b${AI_READER_ROLE}\s+(?:that\s+(?:is\s+)?|who\s+(?:is\s+)?)?(?:reading|reads|processing|processes|summari[sz]ing|summari[sz]es|handling|parsing|analy[sz]ing|seeing|sees)\s+(?:this|these|the\s+following)\b`,
    String.raw`\bif\s+you\s+are\s+(?:an?\s+)?${AI_READER_ROLE}\b`,
    String.raw`(?:^|[.!?;]\s+|\n\s*)(?:dear\s+|hey\s+|hi\s+|hello\s+|attention\s+|to\s+(?:the\s+)?)?(?:${AI_NAME}|assistant)\s*[:,]`,
  ].join("|"),
  "i",
);

/** Whether the window's words address an AI reader outright (see ADDRESSES_AN_AI). */
export const addressesAnAi = (text: string): boolean => ADDRESSES_AN_AI.test(text);

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
