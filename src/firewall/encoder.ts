/**
 * Which space the firewall compares texts in. By default the general model's hidden state after
 * its 4th of 6 layers, mean-pooled (the converter's mean_hidden_state_4 output): the same run
 * that embeds a text for the cache, documents and /v1/embeddings computes it, so a message's one
 * inference serves both stages, and that space separates attacks from ordinary text better than
 * the last layer's (docs/research/firewall-experiments.md, "Layer 4 of the general model").
 * `--firewall-model-dir` gives the firewall an encoder of its own (e.g. one built by
 * `npm run train:firewall`), loaded into the same inference pool, int8, with its own vector LRU;
 * its calibration must then be refitted (`npm run fit:firewall`).
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import type { Config } from "../config";
import { checkModelFolder } from "../embeddings/model-files";
import { Readability } from "../embeddings/readability";
import { assetPaths, generalVectorSpace } from "../runtime/assets";
import { CALIBRATION } from "./calibration";
import type { ScanOptions } from "./scan";

type FirewallModelConfig = Pick<Config, "firewallModelDir" | "modelDir" | "embedPrecision">;

/** The general model's output the firewall compares in (written by scripts/model/bert-graph.ts). */
export const FIREWALL_VIEW = "mean_hidden_state_4";

/** The space of the built-in input patterns, the contrast texts and the calibration: "<model folder>/<precision>[/<view>]". */
export function firewallEmbedderKey(config: FirewallModelConfig): string {
  return config.firewallModelDir ? `${basename(config.firewallModelDir)}/int8` : `${generalVectorSpace(config)}/${FIREWALL_VIEW}`;
}

/**
 * The space of custom patterns, output-side patterns and the system-prompt check: the general
 * model's last layer by default. Their single-cosine scores are anchored on what a last-layer
 * MiniLM cosine means (scripts/fit/firewall.ts, SINGLE_ANCHORS), which layer 4 does not share.
 */
export function firewallPatternKey(config: FirewallModelConfig): string {
  return config.firewallModelDir ? firewallEmbedderKey(config) : generalVectorSpace(config);
}

/** The view of the general model's runs the firewall reads; undefined: its own model's main vector. */
export function firewallView(config: Pick<Config, "firewallModelDir">): string | undefined {
  return config.firewallModelDir ? undefined : FIREWALL_VIEW;
}

/** Fails at start-up, naming the file, when a configured firewall model folder is incomplete. */
export function checkFirewallModel(config: Pick<Config, "firewallModelDir">): void {
  if (config.firewallModelDir) checkModelFolder(config.firewallModelDir, true, "npm run train:firewall");
}

/** What loadEmbedder (server.ts) loads for the firewall; undefined: the general model. */
export function firewallModel(config: Pick<Config, "firewallModelDir">): { modelDir: string; quantized: boolean } | undefined {
  return config.firewallModelDir ? { modelDir: config.firewallModelDir, quantized: true } : undefined;
}

/** How the server scans input: the configured window budget, the calibration's window size, the encoder's vocabulary. */
export function firewallScanOptions(config: FirewallModelConfig & Pick<Config, "firewallWindowBudget">): ScanOptions {
  const modelDir = config.firewallModelDir || config.modelDir || assetPaths().modelDir;
  // Without a vocabulary file to check against (start-up refuses such a folder; tools may not), every window is scored.
  const readability = existsSync(join(modelDir, "tokenizer.json")) ? Readability.ofModel(modelDir) : new Readability(undefined);
  return { budgetTokens: config.firewallWindowBudget, windowTokens: CALIBRATION.windowTokens, readability };
}
