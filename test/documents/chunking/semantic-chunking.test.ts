import { describe, expect, test } from "bun:test";
import { chunkDocument } from "../../../src/documents/chunking/index.ts";
import { parseDocument, type ParsedDocument } from "../../../src/documents/parsing/index.ts";
import { sampleDocx } from "../../fixtures-gen/sample-documents.ts";
import { countWords, embedBagOfWords } from "./stand-ins.ts";

const CATS = [
  "Cats sleep most of the afternoon in sunny windows.",
  "Sleeping cats purr softly when their owners come near the windows.",
  "Older cats sleep even longer and purr less often.",
  "Cats choose warm sunny spots to sleep and purr.",
  "Owners notice cats purr loudly before they sleep.",
];
const COMPILERS = [
  "Compilers translate source code into machine instructions.",
  "Optimising compilers rewrite source code to run machine instructions faster.",
  "Modern compilers check source types before emitting machine instructions.",
  "Compilers report errors in source code with line numbers.",
];

async function textDocument(text: string): Promise<ParsedDocument> {
  return parseDocument("topics.txt", new TextEncoder().encode(text));
}

const semantic = (chunkSize: number) => ({ strategy: "semantic" as const, chunkSize, chunkOverlap: 0, countTokens: countWords, embedMany: embedBagOfWords });

describe("semantic chunking", () => {
  test("cuts where the topic changes, inside one paragraph", async () => {
    const doc = await textDocument([...CATS, ...COMPILERS].join(" "));
    const chunks = await chunkDocument(doc, semantic(160));
    expect(chunks.map((chunk) => chunk.text)).toEqual([CATS.join(" "), COMPILERS.join(" ")]);
    expect(chunks.every((chunk) => chunk.chunking_strategy === "semantic")).toBe(true);
  });

  test("a text whose sentences are all equally similar has no topic shift", async () => {
    const doc = await textDocument(Array.from({ length: 12 }, () => CATS[0]).join(" "));
    expect(await chunkDocument(doc, semantic(160))).toHaveLength(1);
  });

  test("still closes chunks at chunkSize, and a shift inside a short chunk waits for a quarter of chunkSize", async () => {
    const doc = await textDocument([...CATS, ...COMPILERS].join(" "));
    const small = await chunkDocument(doc, semantic(25));
    for (const chunk of small) expect(chunk.tokens).toBeLessThanOrEqual(25);
    expect(small.map((chunk) => chunk.chunk_index)).toEqual(small.map((_, i) => i));
    // With chunkSize 400 the minimum is 100 tokens: the cats part (47 words) is too short to stand alone.
    expect(await chunkDocument(doc, semantic(400))).toHaveLength(1);
  });

  test("sections and tables still separate chunks, and the output is deterministic", async () => {
    const { filename, bytes } = await sampleDocx();
    const doc = await parseDocument(filename, bytes);
    const first = await chunkDocument(doc, semantic(512));
    expect(first.map((chunk) => [chunk.chunk_type, chunk.section_number])).toEqual([
      ["text", "1"],
      ["text", "1.1"],
      ["table", "1.1"],
      ["text", "2"],
      ["table", "2.1"],
      ["text", "2.2"],
    ]);
    expect(await chunkDocument(doc, semantic(512))).toEqual(first);
  });

  test("embeds each prose sentence once, in document order, in a single call", async () => {
    const calls: string[][] = [];
    const doc = await textDocument(`1 Cats\n\n${CATS.slice(0, 2).join(" ")}\n\n2 Code\n\n${COMPILERS[0]}`);
    await chunkDocument(doc, { ...semantic(512), embedMany: (texts) => (calls.push(texts), embedBagOfWords(texts)) });
    expect(calls).toEqual([[...CATS.slice(0, 2), COMPILERS[0]]]);
  });
});
