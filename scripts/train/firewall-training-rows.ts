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
import { DATASETS, readLabelled, type LabelledRow } from "../eval/firewall-data";

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
