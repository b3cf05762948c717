import { describe, expect, test } from "bun:test";
import { parseDocument } from "../../../src/documents/parsing/index.ts";
import { sampleMarkdown } from "../../fixtures-gen/sample-documents.ts";

describe("Markdown parsing", () => {
  test("front matter skipped; headings, table, fenced code, list and setext heading found", async () => {
    const { filename, bytes } = sampleMarkdown();
    const doc = await parseDocument(filename, bytes);
    expect(doc).toMatchObject({ format: "markdown", mimeType: "text/markdown" });
    expect(doc.blocks.map((block) => [block.kind, block.level ?? null, block.text.split("\n")[0]])).toEqual([
      ["heading", 1, "1 Setup"],
      ["paragraph", null, "Clone the repository and install the dependencies. The build takes about a minute on a laptop, see the docs."],
      ["heading", 2, "1.1 Configuration"],
      ["table", null, "| Key | Default | Meaning |"],
      ["heading", 2, "1.2 Usage"],
      ["paragraph", null, "Run the server with the script below."],
      ["code", null, "./run.sh --port 8080"],
      ["list", null, "- first item"],
      ["heading", 1, "Setext title"],
      ["paragraph", null, "Closing words."],
    ]);
  });

  test("pipe table rows, columns and headers; heading section numbers; code language", async () => {
    const doc = await parseDocument(sampleMarkdown().filename, sampleMarkdown().bytes);
    expect(doc.blocks.find((block) => block.kind === "table")?.table).toEqual({
      rows: 3,
      columns: 3,
      headers: ["Key", "Default", "Meaning"],
      body: [
        ["port", "8080", "Port to listen on"],
        ["host", "localhost", "Interface to bind"],
      ],
    });
    expect(doc.blocks.filter((block) => block.kind === "heading").map((block) => block.sectionNumber)).toEqual(["1", "1.1", "1.2", null]);
    expect(doc.blocks.find((block) => block.kind === "code")?.language).toBe("bash");
  });

  test("a fence keeps headings and tables inside it as code", async () => {
    const markdown = "```\n# not a heading\n| a | b |\n|---|---|\n```\n";
    const doc = await parseDocument("f.md", new TextEncoder().encode(markdown));
    expect(doc.blocks).toEqual([{ kind: "code", text: "# not a heading\n| a | b |\n|---|---|", page: null }]);
  });
});
