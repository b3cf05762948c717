import type { CacheRejection } from "../evidence/schema";
import type { Channel } from "./dialects/dialect";
import type { ProxiedRequest } from "./request";
import type { UpstreamCall } from "./upstream";

export type FirewallAction = "allow" | "log" | "warn" | "block";

/** What the firewall decided about one text (input, or output so far). */
export type FirewallVerdict = {
  action: FirewallAction;
  /** Family of the strongest pattern that fired, e.g. prompt_injection. */
  family: string | null;
  /** Human-readable reason for a block, "<family>: …". */
  reason: string | null;
  /** The patterns that fired, as recorded in the evidence. */
  matches: Record<string, unknown>[];
  /** Input side: the channel of the window that decided (user or data; docs/firewall.md, *Channels*). */
  channel?: Channel;
};

export const ALLOW: FirewallVerdict = { action: "allow", family: null, reason: null, matches: [] };

/** Watches the assistant's output of one request while it streams (or once, for non-streams). */
export interface OutputMonitor {
  /**
   * Called with each piece of new assistant text; a block verdict ends the stream. A promise means
   * a check is running: the relay sends the events before this one first, and this one waits.
   */
  inspect(addedText: string, textSoFar: string): Promise<FirewallVerdict> | FirewallVerdict;
  /** Called once with the whole text when the response is complete. */
  finish(fullText: string): Promise<FirewallVerdict> | FirewallVerdict;
}

/** Stage 1: the semantic firewall. */
export interface FirewallStage {
  checkInput(request: ProxiedRequest): Promise<FirewallVerdict>;
  outputMonitor(request: ProxiedRequest): OutputMonitor | undefined;
}

/**
 * A response the cache can answer with: the provider's JSON answer in the request's own dialect
 * (the API is part of the key), parsed and as the stored text a non-streamed hit is answered with.
 */
export type CachedCompletion = { completion: Record<string, unknown>; body: string; key: string; kind: "exact" | "semantic"; similarity: number; savedUpstreamMs: number };

/** Stage 2: the response cache. */
export interface CacheStage {
  lookup(request: ProxiedRequest): Promise<CachedCompletion | undefined>;
  /**
   * The lookup in its two halves, for parallel mode: the exact one (no embedding) before the
   * provider call starts, the semantic one (which embeds the prompt) beside it. `lookup` is the two in turn.
   */
  lookupExact?(request: ProxiedRequest): Promise<CachedCompletion | undefined>;
  lookupSemantic?(request: ProxiedRequest): Promise<CachedCompletion | undefined>;
  /**
   * The halves' outcome (a hit, or a miss) enters the cache's stats and metrics only through this,
   * called once the input verdict let the request through: a blocked request counts as neither.
   */
  countLookup?(request: ProxiedRequest): void;
  /**
   * Called as the input check starts: the lookup's work that needs no vector may be done while the
   * firewall's encoder runs (never anything a client could see).
   */
  prepare?(request: ProxiedRequest): void;
  /**
   * Offered only completions that finished normally and passed the output firewall. Resolves when
   * the entry is written (never rejects: a failed store is logged); the pipeline does not wait for it.
   */
  store(request: ProxiedRequest, completion: Record<string, unknown>, upstreamMs: number): Promise<void>;
  /**
   * Single-flight: while a miss for the same request is in flight, identical requests wait for
   * it. Returns a release function the pipeline calls when the first request is done.
   */
  claim?(request: ProxiedRequest): Promise<(() => void) | undefined>;
  /** The most similar candidate the lookup of this request turned down, for the evidence. */
  rejectedCandidate?(request: ProxiedRequest): CacheRejection | undefined;
}

/**
 * Stage 3: the provider. Resolves with the provider's response (an error status included) once
 * its headers are in; rejects with UpstreamError when no provider answered.
 */
export interface UpstreamStage {
  send(request: ProxiedRequest): Promise<UpstreamCall>;
}

export const firewallOff: FirewallStage = {
  checkInput: async () => ALLOW,
  outputMonitor: () => undefined,
};

export const cacheOff: CacheStage = {
  lookup: async () => undefined,
  store: async () => {},
};

/** Strongest action wins: block > warn > log > allow. */
export function strongest(verdicts: FirewallVerdict[]): FirewallVerdict {
  const rank: Record<FirewallAction, number> = { allow: 0, log: 1, warn: 2, block: 3 };
  return verdicts.reduce((best, next) => (rank[next.action] > rank[best.action] ? next : best), ALLOW);
}
