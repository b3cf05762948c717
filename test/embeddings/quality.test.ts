import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { cosine } from "../../src/embeddings/embedder.ts";
import { embedder } from "./shared.ts";

// The real model: seconds per test, more on a busy 2-core box.
setDefaultTimeout(120_000);

const PARAPHRASES: [string, string][] = [
  ["A man is playing a guitar.", "A person is playing the guitar."],
  ["How do I reset my password?", "How can I change my password?"],
  ["The cat sat on the mat.", "A cat was sitting on the mat."],
  ["The train to London was delayed by an hour.", "The London train arrived an hour late."],
  ["The invoice must be paid within thirty days.", "Payment of the invoice is due within 30 days."],
];

const UNRELATED: [string, string][] = [
  ["A man is playing a guitar.", "Quarterly tax filings are due in April."],
  ["How do I reset my password?", "Penguins live in the Southern Hemisphere."],
  ["The cat sat on the mat.", "The stock market closed higher on Friday."],
  ["The train to London was delayed by an hour.", "Photosynthesis converts light into chemical energy."],
];

for (const precision of ["fp32", "int8"] as const) {
  describe(`${precision} embeddings`, () => {
    test("describe the model: 384 dimensions, unit length, folder name", async () => {
      const e = await embedder(precision === "int8");
      expect(e.dimensions).toBe(384);
      expect(e.modelName).toBe("all-MiniLM-L6-v2");
      const v = await e.embed("Hello world");
      expect(v.length).toBe(384);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    });

    test.each(PARAPHRASES)("paraphrases score above 0.75: %s / %s", async (a, b) => {
      const e = await embedder(precision === "int8");
      expect(cosine(await e.embed(a), await e.embed(b))).toBeGreaterThan(0.75);
    });

    test.each(UNRELATED)("unrelated texts score below 0.25: %s / %s", async (a, b) => {
      const e = await embedder(precision === "int8");
      expect(cosine(await e.embed(a), await e.embed(b))).toBeLessThan(0.25);
    });
  });
}

test("int8 agrees with fp32 (cosine >= 0.98) on the same text", async () => {
  const [fp32, int8] = await Promise.all([embedder(false), embedder(true)]);
  const texts = [
    ...PARAPHRASES.flat(),
    "Sieve is a self-hosted sidecar that proxies OpenAI-compatible requests through a semantic firewall and cache.",
    "ERROR 2024-05-01T12:00:00Z connection refused (errno 111) while contacting upstream at 10.0.0.7:8443",
  ];
  const [a, b] = await Promise.all([fp32.embedMany(texts), int8.embedMany(texts)]);
  for (let i = 0; i < texts.length; i++) expect(cosine(a[i], b[i])).toBeGreaterThanOrEqual(0.98);
});
