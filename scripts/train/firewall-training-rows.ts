/**
 * The public rows the firewall's encoder is built from, split once for everyone who needs it:
 * `encoder` rows train the encoder (prepare-firewall-data.ts); `calibration` rows (one in five,
 * chosen by a hash of the text) are never shown to it and are what `fit:firewall` fits the
 * calibration and anchors the score scale on for that encoder. A scale anchored on rows the
 * encoder was trained to push away from the patterns sits too low for unseen benign text (the
 * first runs blocked 14–16% of the over-defense set at 0–1% dev FPR for that reason).
 * Never firewall-dev.jsonl.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Readability } from "../../src/embeddings/readability";
import { cueScore } from "../../src/firewall/cues";
import { BUILTIN_PATTERNS } from "../../src/firewall/library";
import { planWindows } from "../../src/firewall/scan";
import { WINDOW_TOKENS } from "../../src/firewall/windows";
import { DATASETS, readLabelled, type LabelledRow } from "../eval/firewall-data";
import { OWN_GROUP, ownExamples } from "../fit/firewall-own-examples";

const CALIBRATION_SHARE = 5;
const normal = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();
const isCalibrationRow = (row: LabelledRow) => createHash("sha256").update(normal(row.text)).digest().readUInt32BE(0) % CALIBRATION_SHARE === 0;

/** firewall-train-v2.jsonl plus the rows of firewall-train.jsonl not already in it, split. */
export function encoderDataRows(): { encoder: LabelledRow[]; calibration: LabelledRow[] } {
  const v2 = readLabelled(join(DATASETS, "firewall-train-v2.jsonl"));
  const inV2 = new Set(v2.map((r) => normal(r.text)));
  const v1 = readLabelled(join(DATASETS, "firewall-train.jsonl")).filter((r) => !inV2.has(normal(r.text)));
  const rows = [...v2, ...v1];
  return { encoder: rows.filter((r) => !isCalibrationRow(r)), calibration: rows.filter(isCalibrationRow) };
}

/**
 * The project's own rows: its written examples (one source group per category; a matched pair's
 * two rows carry its index, for the encoder trainer's pair term) and the built-in input patterns
 * (attacks of their family).
 */
export function projectRows({ matchedPairs = false, harmfulPairs = false, personaPrompts = false, taskPrompts = false } = {}): { own: (LabelledRow & { pair?: number })[]; patterns: LabelledRow[] } {
  const own = ownExamples({ matchedPairs, harmfulPairs, personaPrompts, taskPrompts }).map((e, i) => ({ id: `own-${i}`, text: e.text, attack: e.attack, family: null, source: OWN_GROUP, group: `${OWN_GROUP}: ${e.category}`, pair: e.pair }));
  const patterns = BUILTIN_PATTERNS.filter((p) => p.side === "input").map((p) => ({ id: p.slug, text: p.text, attack: true, family: p.family, source: "built-in patterns", group: "built-in patterns" }));
  return { own, patterns };
}

/** The pool of a row of firewall-train-v2/-v3 (its id without the hash: "fw3-injecagent"), undefined for other files. */
export function poolOf(row: LabelledRow): string | undefined {
  return /^(fw[23]-[a-z0-9-]+?)-[0-9a-f]{8,}$/.exec(row.id)?.[1];
}

/**
 * firewall-train-v2 and firewall-train-v3-additions, each row in the group of its pool, at most `cap`
 * rows per pool (a hash of the id decides). `v2` replaces v2's rows (e.g. the encoder's share of them).
 */
export function pooledPublicRows(cap: number, v2: LabelledRow[] = readLabelled(join(DATASETS, "firewall-train-v2.jsonl"))): LabelledRow[] {
  const v3 = readLabelled(join(DATASETS, "firewall-train-v3-additions.jsonl"));
  const rank = (id: string) => createHash("sha256").update(id).digest("hex");
  const byPool = new Map<string, LabelledRow[]>();
  for (const row of [...v2, ...v3]) {
    const group = poolOf(row) ?? row.group;
    byPool.set(group, [...(byPool.get(group) ?? []), { ...row, group }]);
  }
  return [...byPool.values()].flatMap((rows) => rows.sort((a, b) => rank(a.id).localeCompare(rank(b.id))).slice(0, cap));
}

const WINDOWS_PER_ROW = 3;
const textHash = (text: string) => createHash("sha256").update(text).digest().readUInt32BE(0);

/**
 * The windows a row trains on, planned as the server plans them (no budget). A long text keeps at
 * most WINDOWS_PER_ROW: those with the most attack cue words (where an injection hides), plus,
 * for benign rows, one more chosen by a hash of the text.
 */
export function keptWindows(row: LabelledRow, readability: Readability): string[] {
  const windows = planWindows([row.text], () => false, { budgetTokens: 0, windowTokens: WINDOW_TOKENS, readability }).windows;
  if (windows.length <= WINDOWS_PER_ROW) return windows;
  const byCues = windows.map((text, i) => ({ text, i, cues: cueScore(text) })).sort((a, b) => b.cues - a.cues || a.i - b.i);
  if (row.attack) return byCues.slice(0, WINDOWS_PER_ROW).map((w) => w.text);
  const chosen = byCues.slice(0, WINDOWS_PER_ROW - 1).map((w) => w.text);
  const rest = windows.filter((w) => !chosen.includes(w));
  return [...chosen, rest[textHash(row.text) % rest.length]!];
}
