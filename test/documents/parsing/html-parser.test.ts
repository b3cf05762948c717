import { describe, expect, test } from "bun:test";
import { parseDocument } from "../../../src/documents/parsing/index.ts";
import { sampleHtml } from "../../fixtures-gen/sample-documents.ts";

describe("HTML parsing", () => {
  test("headings, paragraphs, caption, table, code and nested list, in document order", async () => {
    const { filename, bytes } = sampleHtml();
    const doc = await parseDocument(filename, bytes);
    expect(doc).toMatchObject({ format: "html", mimeType: "text/html", pageCount: 1, paginated: false });
    expect(doc.blocks.map((block) => [block.kind, block.text.split("\n")[0]])).toEqual([
      ["heading", "1 Getting started"],
      ["paragraph", "Install the tool with the package manager of your system. It needs no configuration to run."],
      ["heading", "1.1 Options"],
      ["paragraph", "The options below change how the tool behaves & what it prints."],
      ["caption", "Table 1: Command-line options"],
      ["table", "| Flag | Meaning |"],
      ["heading", "1.2 Example"],
      ["paragraph", "A minimal script looks like this:"],
      ["code", "def main():"],
      ["list", "- Runs on Linux"],
    ]);
  });

  test("skips head, scripts, styles and navigation", async () => {
    const doc = await parseDocument(sampleHtml().filename, sampleHtml().bytes);
    const text = doc.blocks.map((block) => block.text).join(" ");
    for (const absent of ["Guide", "ignored", "color", "Home", "doctype"]) expect(text).not.toContain(absent);
  });

  test("code keeps its indentation and language; nested lists are indented", async () => {
    const doc = await parseDocument(sampleHtml().filename, sampleHtml().bytes);
    expect(doc.blocks.find((block) => block.kind === "code")).toEqual({ kind: "code", text: 'def main():\n    print("hello")', page: null, language: "python" });
    expect(doc.blocks.find((block) => block.kind === "list")?.text).toBe("- Runs on Linux\n- Runs on macOS\n  - Intel and ARM");
  });

  test("table header comes from th cells, paragraphs in a cell stay apart; loose inline text becomes a paragraph", async () => {
    const html = "<div>Loose <em>inline</em> text<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td><p>2</p><p>two</p></td></tr></table></div>";
    const doc = await parseDocument("t.html", new TextEncoder().encode(html));
    expect(doc.blocks[0]).toEqual({ kind: "paragraph", text: "Loose inline text", page: null });
    expect(doc.blocks[1].table).toEqual({ rows: 2, columns: 2, headers: ["A", "B"], body: [["1", "2 two"]] });
  });

  test("page furniture is dropped: banner, footer, sidebar, link-only tables; an article's own <header> with its title stays", async () => {
    const html = `<body><header><a href="/">Home</a> <a href="/docs">Docs</a></header>
      <div class="sidebar"><ul><li>Elsewhere</li></ul></div>
      <article><header><h1>Release notes</h1></header><p>What changed in this release.</p>
      <table><tr><td><a href="a.html">A</a></td><td><a href="b.html">B</a></td></tr></table>
      <table><tr><th>Item</th><th>Count</th></tr><tr><td>Bolts</td><td>4</td></tr></table></article>
      <aside>Related posts</aside><footer>© Example Corp</footer></body>`;
    const doc = await parseDocument("page.html", new TextEncoder().encode(html));
    expect(doc.blocks.map((block) => [block.kind, block.text])).toEqual([
      ["heading", "Release notes"],
      ["paragraph", "What changed in this release."],
      ["table", "| Item | Count |\n| --- | --- |\n| Bolts | 4 |"],
    ]);
  });

  test("with a <main>, only its content is read", async () => {
    const html = `<body><div id="menu"><p>Menu text</p></div><p>Promo outside main</p><main><h2>Guide</h2><p>Body text.</p></main></body>`;
    const doc = await parseDocument("page.html", new TextEncoder().encode(html));
    expect(doc.blocks.map((block) => block.text)).toEqual(["Guide", "Body text."]);
  });
});
