/**
 * Which model the firewall compares texts in. By default the general model (all-MiniLM-L6-v2),
 * shared with the cache, documents and /v1/embeddings, so a message's one vector serves both
 * stages. `--firewall-model-dir` gives the firewall an encoder of its own (e.g. one built by
 * `npm run train:firewall`), loaded into the same inference pool, int8, with its own vector LRU;
 * its calibration must then be refitted (`npm run fit:firewall`).
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import type { Config } from "../config";
import { checkModelFolder } from "../embeddings/model-files";
import { assetPaths, generalVectorSpace } from "../runtime/assets";
import { CALIBRATION } from "./calibration";
import { Readability } from "./readable";
import type { ScanOptions } from "./scan";

type FirewallModelConfig = Pick<Config, "firewallModelDir" | "modelDir" | "embedPrecision">;

/** The key stored vectors and the calibration belong to: "<model folder>/<precision>". */
export function firewallEmbedderKey(config: FirewallModelConfig): string {
  return config.firewallModelDir ? `${basename(config.firewallModelDir)}/int8` : generalVectorSpace(config);
}

/** Fails at start-up, naming the file, when a configured firewall model folder is incomplete. */
export function checkFirewallModel(config: Pick<Config, "firewallModelDir">): void {
  if (config.firewallModelDir) checkModelFolder(config.firewallModelDir, true);
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
