import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbedderLoadError } from "../../src/embeddings/embedder.ts";
import { MODEL_DIR, pool } from "./shared.ts";

// The real model: seconds per test, more on a busy 2-core box.
setDefaultTimeout(120_000);

const root = mkdtempSync(join(tmpdir(), "sieve-embed-errors-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the real model folder (ONNX files symlinked) with `change` applied to it. */
function brokenModel(name: string, change: (dir: string) => void): string {
  const dir = join(root, name, "all-MiniLM-L6-v2");
  mkdirSync(join(dir, "onnx"), { recursive: true });
  for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json"]) copyFileSync(join(MODEL_DIR, file), join(dir, file));
  for (const file of ["onnx/model.onnx", "onnx/model_quantized.onnx"]) symlinkSync(join(MODEL_DIR, file), join(dir, file));
  change(dir);
  return dir;
}

test("a missing ONNX file is named in the error", async () => {
  const dir = brokenModel("no-onnx", (d) => rmSync(join(d, "onnx/model_quantized.onnx")));
  const loading = pool().loadModel({ modelDir: dir, quantized: true });
  await expect(loading).rejects.toThrow(EmbedderLoadError);
  await expect(loading).rejects.toThrow(join(dir, "onnx/model_quantized.onnx"));
});

test("a missing tokenizer file is named in the error", async () => {
  const dir = brokenModel("no-tokenizer", (d) => rmSync(join(d, "tokenizer.json")));
  await expect(pool().loadModel({ modelDir: dir, quantized: false })).rejects.toThrow(join(dir, "tokenizer.json"));
});

test("a corrupt ONNX file is named in the error", async () => {
  const dir = brokenModel("corrupt-onnx", (d) => {
    rmSync(join(d, "onnx/model.onnx"));
    writeFileSync(join(d, "onnx/model.onnx"), "this is not a protobuf");
  });
  const loading = pool().loadModel({ modelDir: dir, quantized: false });
  await expect(loading).rejects.toThrow(EmbedderLoadError);
  await expect(loading).rejects.toThrow("onnx/model.onnx");
});

test("a corrupt JSON file is named in the error", async () => {
  const dir = brokenModel("corrupt-config", (d) => writeFileSync(join(d, "config.json"), "{ not json"));
  await expect(pool().loadModel({ modelDir: dir, quantized: true })).rejects.toThrow(join(dir, "config.json"));
});

test("a missing model folder is named in the error", async () => {
  const dir = join(root, "nowhere", "all-MiniLM-L6-v2");
  await expect(pool().loadModel({ modelDir: dir, quantized: true })).rejects.toThrow(dir);
});
