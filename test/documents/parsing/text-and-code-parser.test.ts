import { describe, expect, test } from "bun:test";
import { parseDocument } from "../../../src/documents/parsing/index.ts";
import { samplePython } from "../../fixtures-gen/sample-documents.ts";

const encode = (text: string) => new TextEncoder().encode(text);

describe("plain text parsing", () => {
  test("lone numbered lines are headings; hard wraps and hyphenation are joined; bullets make a list", async () => {
    const text = "1 Purpose\n\nThis text was wrapped by hand and a docu-\nment word was split.\r\n\r\n2.1 Details\n\n- one\n- two\n\nTable 3: Totals\n";
    const doc = await parseDocument("notes.txt", encode(text));
    expect(doc.blocks).toEqual([
      { kind: "heading", text: "1 Purpose", page: null, level: 1, sectionNumber: "1" },
      { kind: "paragraph", text: "This text was wrapped by hand and a document word was split.", page: null },
      { kind: "heading", text: "2.1 Details", page: null, level: 2, sectionNumber: "2.1" },
      { kind: "list", text: "- one\n- two", page: null },
      { kind: "caption", text: "Table 3: Totals", page: null },
    ]);
  });

  test("a numbered sentence is not a heading", async () => {
    const doc = await parseDocument("n.txt", encode("3 apples were eaten.\n\n12 Angry Men is a film, they said."));
    expect(doc.blocks.map((block) => block.kind)).toEqual(["paragraph", "paragraph"]);
  });

  test("Windows-1252 text that is not valid UTF-8 still decodes", async () => {
    const doc = await parseDocument("latin.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    expect(doc.blocks[0].text).toBe("café");
  });
});

describe("source code parsing", () => {
  test("one code block per top-level unit; blank lines inside a body do not split it", async () => {
    const { filename, bytes } = samplePython();
    const doc = await parseDocument(filename, bytes);
    expect(doc).toMatchObject({ format: "code", mimeType: "text/x-python", language: "python" });
    expect(doc.blocks.every((block) => block.kind === "code" && block.language === "python")).toBe(true);
    expect(doc.blocks.map((block) => block.text.split("\n")[0])).toEqual(["import os", "def read_config(path):", "class Loader:", 'if __name__ == "__main__":']);
    expect(doc.blocks[1].text).toContain("handle:\n\n        return handle.read()");
  });

  test("a closing brace after a blank line stays with its function", async () => {
    const source = "function a() {\n  return 1;\n\n}\n\nfunction b() {}\n";
    const doc = await parseDocument("a.js", encode(source));
    expect(doc.blocks.map((block) => block.text)).toEqual(["function a() {\n  return 1;\n\n}", "function b() {}"]);
  });
});
