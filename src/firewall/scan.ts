/**
 * The input check, from message texts to a decision. The server's stage, POST /v1/firewall/test
 * and `npm run eval:firewall` all run this function, so the figures in docs/firewall.md are the
 * behaviour of the server.
 */
import { cueScore } from "./cues";
import { decide, type Decision } from "./decision";
import type { WorkspacePatterns } from "./pattern-index";
import { scoreInputWindows, type WindowScore } from "./scoring";
import { estimateTokens, textWindows } from "./windows";

/** Embeddings through the shared LRU (ctx.vectors): texts seen recently cost nothing. */
export type Embedding = {
  embedMany(texts: string[]): Promise<Float32Array[]>;
  peek(text: string): Float32Array | undefined;
};

export type ScanOptions = {
  /** Estimated tokens of not-yet-embedded windows one request may embed (0 = no limit). */
  budgetTokens: number;
  windowTokens: number;
};

export type ScanResult = Decision & {
  /** Windows scored (already known + newly embedded). */
  windows: number;
  /** Windows of long texts left out because the budget ran out. */
  skipped: number;
  scores: WindowScore[];
};

export async function scanTexts(texts: string[], patterns: WorkspacePatterns, embedding: Embedding, options: ScanOptions): Promise<ScanResult> {
  const plan = planWindows(texts, (window) => embedding.peek(window) !== undefined, options);
  const vectors = plan.windows.length > 0 ? await embedding.embedMany(plan.windows) : [];
  const scores = scoreInputWindows(patterns, vectors);
  return { ...decide(scores, "input"), windows: plan.windows.length, skipped: plan.skipped, scores };
}

type Candidate = { text: string; tokens: number; whole: boolean; cues: number; spread: number; recency: number };

/**
 * Which windows to embed. Windows already in the LRU (history scanned on an earlier turn, or the
 * cache stage's vector of the same message) are free. New windows are taken in priority order
 * until the token budget is spent: whole short messages first (newest first), then windows of
 * long texts with the most attack cue words, then the rest spread evenly over each text (first,
 * last, middle, quarters, …), so a cut-off still samples the whole document.
 */
export function planWindows(texts: string[], known: (window: string) => boolean, options: ScanOptions): { windows: string[]; skipped: number } {
  const seen = new Set<string>();
  const free: string[] = [];
  const fresh: Candidate[] = [];
  texts.forEach((text, message) => {
    const windows = textWindows(text, options.windowTokens);
    const spread = spreadRanks(windows.length);
    windows.forEach((window, i) => {
      if (seen.has(window)) return;
      seen.add(window);
      if (known(window)) free.push(window);
      else fresh.push({ text: window, tokens: estimateTokens(window), whole: windows.length === 1, cues: 0, spread: spread[i]!, recency: -message });
    });
  });

  const total = fresh.reduce((sum, c) => sum + c.tokens, 0);
  if (options.budgetTokens <= 0 || total <= options.budgetTokens) return { windows: [...free, ...fresh.map((c) => c.text)], skipped: 0 };

  for (const c of fresh) if (!c.whole) c.cues = cueScore(c.text);
  fresh.sort((a, b) => Number(b.whole) - Number(a.whole) || (a.whole ? a.recency - b.recency : 0) || b.cues - a.cues || a.spread - b.spread || a.recency - b.recency);
  const chosen: string[] = [];
  let spent = 0;
  for (const c of fresh) {
    if (chosen.length > 0 && spent + c.tokens > options.budgetTokens) continue;
    chosen.push(c.text);
    spent += c.tokens;
  }
  return { windows: [...free, ...chosen], skipped: fresh.length - chosen.length };
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
