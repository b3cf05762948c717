import { ALLOW, type FirewallVerdict } from "../proxy/stages";
import type { PatternAction, PatternSide } from "./model";
import type { PatternHit, WindowScore } from "./scoring";

const RANK: Record<PatternAction, number> = { log: 1, warn: 2, block: 3 };

/** Evidence keeps the strongest matches only; a long document can fire the same family in many windows. */
const MAX_RECORDED_MATCHES = 10;

export type Decision = {
  verdict: FirewallVerdict;
  /** The highest-scoring enabled pattern over all windows, fired or not. */
  best: PatternHit | undefined;
  /** Fired patterns, each once (its best window), strongest score first. */
  fired: PatternHit[];
};

/**
 * A pattern fires when its score is strictly greater than its threshold (equal does not fire,
 * so threshold 1.0 never fires). Several fire: block > warn > log; the family named in the
 * verdict and the reason is that of the highest-scoring pattern with the winning action.
 */
export function decide(windows: WindowScore[], side: PatternSide): Decision {
  const byPattern = new Map<string, PatternHit>();
  let best: PatternHit | undefined;
  for (const window of windows) {
    if (window.best && (!best || window.best.score > best.score)) best = window.best;
    for (const hit of window.fired) {
      const seen = byPattern.get(hit.pattern.id);
      if (!seen || hit.score > seen.score) byPattern.set(hit.pattern.id, hit);
    }
  }
  const fired = [...byPattern.values()].sort((a, b) => b.score - a.score);
  if (fired.length === 0) return { verdict: ALLOW, best, fired };
  const lead = fired.reduce((lead, hit) => (RANK[hit.pattern.action] > RANK[lead.pattern.action] ? hit : lead));
  const verdict: FirewallVerdict = {
    action: lead.pattern.action,
    family: lead.pattern.family,
    reason: reasonFor(lead, side),
    matches: fired.slice(0, MAX_RECORDED_MATCHES).map((hit) => matchRecord(hit, side)),
    ...(lead.origin ? { channel: lead.origin.channel } : {}),
  };
  return { verdict, best, fired };
}

export function reasonFor(hit: PatternHit, side: PatternSide): string {
  const what = side === "output" ? "the response" : hit.origin?.channel === "data" ? "data in the request (tool output, document or file)" : "the request";
  const kind = hit.pattern.builtIn ? "built-in" : "custom";
  return `${hit.pattern.family}: ${what} matches ${kind} pattern ${hit.pattern.id} (score ${hit.score.toFixed(3)} > threshold ${hit.pattern.threshold})`;
}

/** One element of FirewallVerdict.matches, as the evidence log stores it. */
export function matchRecord(hit: PatternHit, side: PatternSide): Record<string, unknown> {
  return {
    pattern_id: hit.pattern.id,
    family: hit.pattern.family,
    similarity: round(hit.similarity),
    score: round(hit.score),
    threshold: hit.pattern.threshold,
    action: hit.pattern.action,
    side,
    // Input side: which channel the window came in on and where it starts in its text (characters, as the firewall read it).
    ...(hit.origin ? { channel: hit.origin.channel, window: { message: hit.origin.message, offset: hit.origin.offset } } : {}),
  };
}

export const round = (x: number) => Math.round(x * 10_000) / 10_000;
