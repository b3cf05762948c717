/**
 * What the firewall's fit and eval scripts share: reading a labelled JSONL, naming sources, and
 * an embedder wrapper with an on-disk cache (in the OS temp dir, keyed by model and text hash)
 * so re-running a script does not re-embed thousands of texts. Vectors are identical either way.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { configWith, type Config } from "../../src/config";
import type { Embedder } from "../../src/embeddings/embedder";
import { loadEmbedder } from "../../src/server";
import { firewallEmbedderKey, firewallModel, firewallView } from "../../src/firewall/encoder";
import { assetPaths } from "../../src/runtime/assets";
import { applyDataChannel, type DataChannelRule } from "../../src/firewall/data-channel";
import { decide } from "../../src/firewall/decision";
import type { WorkspacePatterns } from "../../src/firewall/pattern-index";
import { scanTexts, type Embedding, type ScanOptions } from "../../src/firewall/scan";
import type { WindowScore } from "../../src/firewall/scoring";

/** ../shared/datasets beside the checkout; SIEVE_DATASETS points elsewhere (e.g. from a git worktree). */
export const DATASETS = process.env.SIEVE_DATASETS ?? resolve(import.meta.dir, "../../../shared/datasets");

export type LabelledRow = { id: string; text: string; attack: boolean; family: string | null; source: string; group: string };

export function readLabelled(file: string): LabelledRow[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line, i) => {
      const row = JSON.parse(line);
      if (typeof row.text !== "string" || (row.label !== "attack" && row.label !== "benign")) throw new Error(`${file}:${i + 1}: expected {text, label: attack|benign}`);
      const source = typeof row.source === "string" ? row.source : "unknown";
      return { id: String(row.id ?? i), text: row.text, attack: row.label === "attack", family: row.family ?? null, source, group: sourceGroup(source) };
    });
}

/** "JailbreakBench harmful: Bribery (Economic harm)" → "JailbreakBench": per-row labels folded into their collection. */
export function sourceGroup(source: string): string {
  return source.split(":")[0]!.replace(/ (harmful|benign)$/, "").trim();
}

/**
 * Embedding as the server sees a text for the first time: `peek` never reports a vector, so
 * window planning (the budget) behaves as on first sight; vectors come from the disk cache or
 * one batched inference.
 */
export class FirstSightEmbedding implements Embedding {
  readonly #file: string;
  readonly #cache: Map<string, string>;
  #dirty = 0;
  /** With a view: the same model's main vector (its last layer), the server's custom-pattern space (scan.ts). */
  readonly customSpace: FirstSightEmbedding | undefined;

  constructor(
    readonly embedder: Embedder,
    model: string,
    modelDir: string,
    /** Which of the embedder's views to read (Embedder.views); undefined: its main vector. */
    private readonly view?: string,
  ) {
    if (view && !embedder.views.includes(view)) throw new Error(`${modelDir} has no ${view} output: reconvert it (npm run convert-model -- --force)`);
    const dir = join(tmpdir(), "sieve-firewall-vectors");
    mkdirSync(dir, { recursive: true });
    // Cached per backend too (native and WASM int8 vectors differ in the last digits), and per
    // weights file: a retrained model keeps its folder name.
    const weights = statSync(join(modelDir, "onnx", "model_quantized.onnx"), { throwIfNoEntry: false });
    const version = weights ? `-${weights.size}-${Math.round(weights.mtimeMs)}` : "";
    this.#file = join(dir, `${model.replace(/[^\w.-]/g, "_")}-${embedder.runtime.backend}${version}.json`);
    this.#cache = new Map(existsSync(this.#file) ? Object.entries(JSON.parse(readFileSync(this.#file, "utf8"))) : []);
    this.customSpace = view ? new FirstSightEmbedding(embedder, model.slice(0, model.length - view.length - 1), modelDir) : undefined;
  }

  /** The firewall's encoder (encoder.ts: the general model unless --firewall-model-dir), as the server runs it. */
  static async load(config: Config = configWith({})): Promise<FirstSightEmbedding> {
    const modelDir = config.firewallModelDir || config.modelDir || assetPaths().modelDir;
    return new FirstSightEmbedding(await loadEmbedder(config, firewallModel(config)), firewallEmbedderKey(config), modelDir, firewallView(config));
  }

  /**
   * Another model folder (the general model, for before/after comparisons), reading `view` if
   * given; key "<folder>/int8[/<view>]". Undefined when the model has no such output.
   */
  static async loadModel(config: Config, modelDir: string, view?: string): Promise<FirstSightEmbedding | undefined> {
    const embedder = await loadEmbedder(config, { modelDir, quantized: true });
    if (view && !embedder.views.includes(view)) return undefined;
    return new FirstSightEmbedding(embedder, `${basename(modelDir)}/int8${view ? `/${view}` : ""}`, modelDir, view);
  }

  peek(): Float32Array | undefined {
    return undefined;
  }

  async embedMany(texts: string[]): Promise<Float32Array[]> {
    const key = (text: string) => createHash("sha256").update(text).digest("base64url");
    const missing = [...new Set(texts.filter((t) => !this.#cache.has(key(t))))];
    const index = this.embedder.viewIndex(this.view);
    for (let i = 0; i < missing.length; i += 128) {
      const part = missing.slice(i, i + 128);
      const vectors = (await this.embedder.embedManyViews(part)).map((views) => views[index]!);
      part.forEach((text, k) => this.#cache.set(key(text), Buffer.from(vectors[k]!.buffer).toString("base64")));
      this.#dirty += part.length;
      if (this.#dirty >= 1024) this.save();
    }
    return texts.map((text) => {
      const bytes = Buffer.from(this.#cache.get(key(text))!, "base64");
      return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    });
  }

  save(): void {
    this.customSpace?.save();
    if (this.#dirty === 0) return;
    writeFileSync(this.#file, JSON.stringify(Object.fromEntries(this.#cache)));
    this.#dirty = 0;
  }
}

/** One text scanned on the user channel, with each scored window's text and vector (same order as `scores`). */
export type RecordedScan = { scores: WindowScore[]; texts: string[]; vectors: Float32Array[] };

/** Scans `text` as the server would (user channel, no data rule) and keeps what the data rule reads of each window. */
export async function scanRecording(text: string, patterns: WorkspacePatterns, embedding: Embedding, options: ScanOptions): Promise<RecordedScan> {
  const texts: string[] = [];
  const vectors: Float32Array[] = [];
  const recording: Embedding = {
    peek: () => undefined,
    customSpace: embedding.customSpace,
    embedMany: async (batch) => {
      const batchVectors = await embedding.embedMany(batch);
      texts.push(...batch);
      vectors.push(...batchVectors);
      return batchVectors;
    },
  };
  const { scores } = await scanTexts([text], patterns, recording, options);
  return { scores, texts, vectors };
}

/** The input verdict's action had the scan's windows come in on the data channel under `rule` (applied to copies). */
export function actionUnderRule(scan: RecordedScan, rule: DataChannelRule): string {
  const judged = scan.scores.map((window, i) => {
    const copy = { ...window, fired: [...window.fired] };
    applyDataChannel(copy, scan.vectors[i]!, scan.texts[i]!, rule);
    return copy;
  });
  return decide(judged, "input").verdict.action;
}
