/**
 * The input check, from message texts to a decision. The server's stage, POST /v1/firewall/test
 * and `npm run eval:firewall` all run this function, so the figures in docs/firewall.md are the
 * behaviour of the server.
 */
import { foldForModels, hasTokens } from "../embeddings/model-text";
import { sampleLongText } from "../proxy/long-text";
import type { Channel } from "../proxy/dialects/dialect";
import { ALLOW, type FirewallVerdict } from "../proxy/stages";
import { cueScore } from "./cues";
import { applyDataChannel } from "./data-channel";
import { decide, type Decision } from "./decision";
import { decodedPayloads, MAX_DECODE_ATTEMPTS } from "./encoded-text";
import { foldLookalikes } from "./lookalikes";
import type { WorkspacePatterns } from "./pattern-index";
import type { Readability } from "../embeddings/readability";
import { scoreInputWindows, type WindowScore } from "./scoring";
import { estimateTokens, subWindows, textWindows } from "./windows";

/** The firewall encoder's embeddings through its LRU (FirewallService.inputVectors): texts seen recently cost nothing. */
export type Embedding = {
  embedMany(texts: string[]): Promise<Float32Array[]>;
  peek(text: string): Float32Array | undefined;
  /**
   * The same windows in the custom patterns' space when it is another (the general model's last
   * layer beside its layer-4 view: the same runs, so the memo answers without a new inference);
   * the calibration's head reads it too.
   */
  customSpace?: { embedMany(texts: string[]): Promise<Float32Array[]> };
};

export type ScanOptions = {
  /** Estimated tokens of not-yet-embedded windows one request may embed (0 = no limit). */
  budgetTokens: number;
  windowTokens: number;
  /** Which windows the encoder can read (src/embeddings/readability.ts); the others are not scored. */
  readability: Readability;
  /** Estimated tokens of second-look sub-windows (default: what budgetTokens leaves, at least SECOND_LOOK_MIN_TOKENS; without a budget, no limit). */
  secondLookTokens?: number;
  /** Score from which a window gets a second look (default SECOND_LOOK_FROM; a document chunk's: CHUNK_SECOND_LOOK_FROM). */
  secondLookFrom?: number;
};

/** One text to scan and the channel it came in on (`user` when given as a plain string). */
export type ChannelText = { text: string; channel: Channel };

/** Where a window came from: its text's index and channel, and its character offset in that text as the firewall read it (folded). */
export type WindowOrigin = { message: number; channel: Channel; offset: number };

export type ScanResult = Decision & {
  /** Windows scored (already known + newly embedded), second-look sub-windows included. */
  windows: number;
  /** Windows of long texts left out because the budget ran out. */
  skipped: number;
  /** Sub-windows scored because their window looked suspicious (subWindows in windows.ts). */
  secondLook: number;
  /** Windows left unscored because they are mostly in scripts the encoder cannot read. */
  unscored: number;
  scores: WindowScore[];
  /** Per scored window (same order as `scores`), where it came from. */
  origins: WindowOrigin[];
};

/**
 * Calibrated score from which a window gets a second look: its sentences and 16-token runs are
 * embedded and scored too. Ordinary prompts rarely get there (docs/firewall.md gives the share),
 * so the extra embeddings are spent on the texts that need them.
 */
export const SECOND_LOOK_FROM = 0.3;
/** The second look uses what the first pass left of the budget, but always at least this many tokens. */
export const SECOND_LOOK_MIN_TOKENS = 32;

export async function scanTexts(input: (string | ChannelText)[], patterns: WorkspacePatterns, embedding: Embedding, options: ScanOptions): Promise<ScanResult> {
  const texts = input.map((t): ChannelText => (typeof t === "string" ? { text: t, channel: "user" } : t));
  const known = (window: string) => embedding.peek(window) !== undefined;
  const plan = planWindows(texts.map((t) => t.text), known, options, texts.map((t) => t.channel));
  const { windows, unreadable: unscored } = plan;
  // Every scored window's vector, in the order of `scores` (the data channel's addressee head reads it).
  const vectors: Float32Array[] = [];
  const score = async (texts: string[]) => {
    const embedded = embedding.embedMany(texts);
    // The lexical signal reads only the text, so it is computed while the encoder runs. The pool
    // dispatches its runs on a microtask (pool.ts #submit): yielding one first lets them start.
    await Promise.resolve();
    const lexical = texts.map((text) => patterns.builtins.lexical.scoreTerm(text));
    const batch = await embedded;
    vectors.push(...batch);
    const needsCustomSpace = patterns.customInput.length > 0 || patterns.builtins.lastLayerHead !== undefined;
    const custom = needsCustomSpace && embedding.customSpace ? await embedding.customSpace.embedMany(texts) : batch;
    return scoreInputWindows(patterns, texts, batch, custom, lexical);
  };
  const scores = windows.length > 0 ? await score(windows) : [];
  const closerBudget = options.secondLookTokens ?? (options.budgetTokens > 0 ? Math.max(options.budgetTokens - plan.spent, SECOND_LOOK_MIN_TOKENS) : 0);
  const closer = planSecondLook(windows, scores, known, closerBudget, options.secondLookFrom);
  if (closer.length > 0) scores.push(...(await score(closer)));
  // Same windows, same scores, one decision rule per channel: on the data channel the built-in
  // patterns fire from the data channel's threshold, and only on windows addressed to a model
  // (data-channel.ts); every hit says where its window was.
  const origins = [...windows.map((w) => originOf(plan.origins, w)), ...closer.map((sub) => subOrigin(plan.origins, windows, sub))];
  scores.forEach((window, i) => {
    const origin = origins[i]!;
    if (origin.channel === "data") applyDataChannel(window, vectors[i]!, i < windows.length ? windows[i]! : closer[i - windows.length]!);
    for (const h of window.fired) h.origin ??= origin;
    if (window.best) window.best.origin ??= origin;
  });
  const decision = decide(scores, "input");
  const verdict = decision.verdict === ALLOW && unscored > 0 ? unscoredVerdict(unscored, windows.length + unscored) : decision.verdict;
  return { ...decision, verdict, windows: windows.length + closer.length, skipped: plan.skipped, secondLook: closer.length, unscored, scores, origins };
}

function originOf(origins: Map<string, WindowOrigin>, window: string): WindowOrigin {
  return origins.get(window) ?? { message: 0, channel: "user", offset: 0 };
}

/** A second-look piece lies inside one of the windows: its origin is that window's, moved to where the piece starts. */
function subOrigin(origins: Map<string, WindowOrigin>, windows: string[], sub: string): WindowOrigin {
  // Word runs are rejoined with single spaces: compare with the parent's whitespace collapsed.
  const spaced = (text: string) => text.replace(/\s+/g, " ");
  const parent = windows.find((w) => w.includes(sub)) ?? windows.find((w) => spaced(w).includes(sub));
  if (!parent) return originOf(origins, sub);
  const origin = originOf(origins, parent);
  return { ...origin, offset: origin.offset + Math.max(0, parent.includes(sub) ? parent.indexOf(sub) : spaced(parent).indexOf(sub)) };
}

/**
 * Nothing fired, but some text could not be judged: logged (never blocked) and named, so the
 * evidence shows which requests the firewall did not really look at.
 */
export function unscoredVerdict(unscored: number, planned: number): FirewallVerdict {
  return {
    action: "log",
    family: UNSCORED_LANGUAGE,
    reason: `${UNSCORED_LANGUAGE}: ${unscored} of ${planned} text windows are mostly in scripts the firewall's encoder cannot read; they were not scored`,
    matches: [],
  };
}

export const UNSCORED_LANGUAGE = "unscored_language";

/**
 * Sub-windows of the windows that scored at least SECOND_LOOK_FROM, most suspicious window first.
 * New ones share budgetTokens (0 = no limit); known ones are free.
 */
export function planSecondLook(windows: string[], scores: WindowScore[], known: (window: string) => boolean, budgetTokens: number, from = SECOND_LOOK_FROM): string[] {
  const suspicious = windows
    .map((window, i) => ({ window, score: scores[i]!.best?.score ?? 0 }))
    .filter((w) => w.score >= from)
    .sort((a, b) => b.score - a.score);
  const chosen = new Set<string>();
  let spent = 0;
  for (const { window } of suspicious) {
    for (const sub of subWindows(window)) {
      if (chosen.has(sub) || windows.includes(sub) || !hasTokens(sub)) continue;
      const cost = known(sub) ? 0 : estimateTokens(sub);
      if (budgetTokens > 0 && spent + cost > budgetTokens) continue;
      chosen.add(sub);
      spent += cost;
    }
  }
  return [...chosen];
}

/** `decoded`: a window of text hidden in an encoded run (encoded-text.ts). */
type Candidate = { text: string; tokens: number; whole: boolean; decoded: boolean; cues: number; spread: number; recency: number };

/**
 * Which windows to embed. Windows of invisible characters only are dropped (model-text.ts: the
 * encoder sees no token in them; tag characters are spelled out first). Windows the encoder
 * cannot read (with `readability`) are set aside first, so they never take budget from windows it
 * can judge. Windows already in the LRU (history scanned on an earlier turn, or the same message
 * checked a moment ago) are free. New windows are taken in priority order until the token budget
 * is spent: whole short messages first (newest first), then the windows of text hidden in an
 * encoding (base64, base32, hex, letter ciphers: encoded-text.ts), then windows of long texts with the most attack
 * cue words, then the rest spread evenly over each text (first, last, middle, quarters, …), so a
 * cut-off still samples the whole document.
 */
export function planWindows(
  texts: string[],
  known: (window: string) => boolean,
  options: Pick<ScanOptions, "budgetTokens" | "windowTokens"> & Partial<Pick<ScanOptions, "readability">>,
  /** Each text's channel (default user), recorded in `origins`. */
  channels?: Channel[],
): { windows: string[]; skipped: number; spent: number; unreadable: number; origins: Map<string, WindowOrigin> } {
  const seen = new Set<string>();
  const origins = new Map<string, WindowOrigin>();
  let unreadable = 0;
  const free: string[] = [];
  const fresh: Candidate[] = [];
  const plan = (windows: string[], message: number, decoded: boolean, read: string) => {
    const spread = spreadRanks(windows.length);
    let from = 0;
    windows.forEach((window, i) => {
      // A window starts with its first sentence as read (windows join sentences with one space).
      const at = read.indexOf(window.slice(0, 24), from);
      if (at >= 0) from = at;
      if (seen.has(window) || !hasTokens(window)) return; // invisible characters only: nothing to judge
      seen.add(window);
      origins.set(window, { message, channel: channels?.[message] ?? "user", offset: decoded ? 0 : Math.max(at, 0) });
      if (options.readability && !options.readability.readable(window)) unreadable++;
      else if (known(window)) free.push(window);
      else fresh.push({ text: window, tokens: estimateTokens(window), whole: !decoded && windows.length === 1, decoded, cues: 0, spread: spread[i]!, recency: -message });
    });
  };
  // What an encoding hides is judged as text of its own.
  const read = readAsModel;
  const decodeAttempts = { left: MAX_DECODE_ATTEMPTS };
  texts.forEach((text, message) => {
    // With a budget only a few windows are embedded: a huge text is planned from a bounded sample.
    const folded = read(options.budgetTokens > 0 ? sampleLongText(text) : text);
    plan(textWindows(folded, options.windowTokens), message, false, folded);
    for (const payload of decodedPayloads(folded, decodeAttempts, options.readability)) {
      const decoded = read(payload);
      plan(textWindows(decoded, options.windowTokens), message, true, decoded);
    }
  });

  const total = fresh.reduce((sum, c) => sum + c.tokens, 0);
  if (options.budgetTokens <= 0 || total <= options.budgetTokens) return { windows: [...free, ...fresh.map((c) => c.text)], skipped: 0, spent: total, unreadable, origins };

  for (const c of fresh) if (!c.whole) c.cues = cueScore(c.text);
  // Whole short messages, then hidden (decoded) text, then windows of long texts by cue words and spread.
  fresh.sort((a, b) => Number(b.whole) - Number(a.whole) || (a.whole ? a.recency - b.recency : 0) || Number(b.decoded) - Number(a.decoded) || b.cues - a.cues || a.spread - b.spread || a.recency - b.recency);
  const chosen: string[] = [];
  let spent = 0;
  for (const c of fresh) {
    if (chosen.length > 0 && spent + c.tokens > options.budgetTokens) continue;
    chosen.push(c.text);
    spent += c.tokens;
  }
  return { windows: [...free, ...chosen], skipped: fresh.length - chosen.length, spent, unreadable, origins };
}

/**
 * Text as the provider's model reads it: tag characters spelled out, compatibility forms folded,
 * look-alike letters inside Latin words made Latin. Every window is cut from such a reading.
 */
export function readAsModel(raw: string): string {
  return foldLookalikes(foldForModels(raw));
}

/** rank[i] = when window i comes in a first, last, middle, quarters, … traversal of n windows. */
function spreadRanks(n: number): number[] {
  const ranks = new Array<number>(n).fill(-1);
  let next = 0;
  const visit = (i: number) => {
    if (ranks[i] === -1) ranks[i] = next++;
  };
  if (n > 0) visit(0);
  if (n > 1) visit(n - 1);
  let segments: [number, number][] = [[0, n - 1]];
  while (segments.length > 0) {
    const deeper: [number, number][] = [];
    for (const [low, high] of segments) {
      if (high - low < 2) continue;
      const mid = (low + high) >> 1;
      visit(mid);
      deeper.push([low, mid], [mid, high]);
    }
    segments = deeper;
  }
  return ranks;
}
