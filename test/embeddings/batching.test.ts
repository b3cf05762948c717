import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { EmbedderInputError } from "../../src/embeddings/embedder.ts";
import { embedder, maxAbsDiff } from "./shared.ts";

// The real model: seconds per test, more on a busy 2-core box.
setDefaultTimeout(120_000);

// Each of these is a single wordpiece token, so a text of N of them is exactly N tokens.
const WORDS = "the quick brown fox jumps over lazy dog while small birds sing near old river under bright blue sky".split(" ");
const wordsText = (count: number) => Array.from({ length: count }, (_, i) => WORDS[i % WORDS.length]).join(" ");

const SHORT = "Reset my password.";
const LONG =
  "Our quarterly report covers revenue, churn, hiring and the infrastructure migration; the appendix lists every " +
  "incident with its root cause, the time to recovery and the follow-up actions agreed with each owning team.";

for (const precision of ["fp32", "int8"] as const) {
  describe(`${precision}`, () => {
    test("a text's vector does not depend on what it is batched with", async () => {
      const e = await embedder(precision === "int8");
      const [short, long] = await e.embedMany([SHORT, LONG]);
      expect(maxAbsDiff(short, await e.embed(SHORT))).toBeLessThanOrEqual(1e-5);
      expect(maxAbsDiff(long, await e.embed(LONG))).toBeLessThanOrEqual(1e-5);
    });

    test("concurrent embed() calls match separate calls", async () => {
      const e = await embedder(precision === "int8");
      const texts = [SHORT, LONG, "A third, medium-sized text about caching.", "x"];
      const together = await Promise.all(texts.map((t) => e.embed(t)));
      for (let i = 0; i < texts.length; i++) expect(maxAbsDiff(together[i], await e.embed(texts[i]))).toBeLessThanOrEqual(1e-5);
    });

    test("a 300-word text does not crash and equals its 256-token truncation", async () => {
      const e = await embedder(precision === "int8");
      expect(e.countTokens(wordsText(300))).toBe(300);
      // 256 tokens = [CLS] + 254 words + [SEP]
      expect(maxAbsDiff(await e.embed(wordsText(300)), await e.embed(wordsText(254)))).toBeLessThanOrEqual(1e-5);
      expect(maxAbsDiff(await e.embed(wordsText(254)), await e.embed(wordsText(253)))).toBeGreaterThan(1e-4);
    });

    test("a long document (past the tokenising shortcut's window) truncates the same way", async () => {
      const e = await embedder(precision === "int8");
      const truncated = await e.embed(wordsText(254));
      expect(maxAbsDiff(await e.embed(wordsText(5000)), truncated)).toBeLessThanOrEqual(1e-5);
      const spaced = wordsText(254).replace(" ", " ".repeat(20_000)) + " trailing words";
      expect(maxAbsDiff(await e.embed(spaced), truncated)).toBeLessThanOrEqual(1e-5);
    });

    test("empty or whitespace-only text throws instead of returning NaN", async () => {
      const e = await embedder(precision === "int8");
      await expect(e.embed("")).rejects.toThrow(EmbedderInputError);
      await expect(e.embed("  \n\t ")).rejects.toThrow(/empty text/);
      await expect(e.embedMany(["fine", ""])).rejects.toThrow(EmbedderInputError);
    });
  });
}

test("countTokens counts wordpieces without [CLS]/[SEP]", async () => {
  const e = await embedder(true);
  expect(e.countTokens("Hello world")).toBe(2);
  expect(e.countTokens("")).toBe(0);
  expect(e.countTokens("tokenization")).toBe(2); // token ##ization
});

test("embedMany keeps input order across internal batches", async () => {
  const e = await embedder(true);
  expect(await e.embedMany([])).toEqual([]);
  const texts = Array.from({ length: 70 }, (_, i) => wordsText((i % 9) + 1) + ` item ${i}`);
  const vectors = await e.embedMany(texts);
  for (const i of [0, 33, 69]) expect(maxAbsDiff(vectors[i], await e.embed(texts[i]))).toBeLessThanOrEqual(1e-5);
});
