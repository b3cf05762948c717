/**
 * eval:documents — structure quality of the document pipeline on a folder of real PDFs.
 *
 * Runs the server's own parsing and chunking (recursive, 512 tokens, the model's tokenizer; no
 * embedding) on every *.pdf in DIR and prints, per file and in total:
 * - outline titles recovered: the PDF's own bookmarks (pdf.js getOutline()) whose normalised
 *   title (case, punctuation, spacing and a leading section number ignored) is a heading on some
 *   chunk's section_hierarchy; files without an outline are not counted here;
 * - table chunks: share of chunks typed `table` (on manuals, most should be text);
 * - chunks with a running header: the share of chunks whose text or section path holds a line
 *   the PDF repeats as the first or last line of at least a quarter of its pages (and 3 pages),
 *   numbers ignored — page furniture left in (a criterion of its own, simpler than the parser's
 *   pdf-furniture.ts, so the parser is not graded by its own rule);
 * - pages/s of parse + chunk (wall clock, one file at a time);
 * - failures (an error the API would answer with 5xx), and apart from them the files the API
 *   refuses with a 4xx (no text layer: drawings only; not a PDF; corrupt), which is the right answer.
 *
 * With --without-outline every PDF's outline is removed before parsing (pdf-lib), so the
 * same ground truth measures the layout fallback (numbering, type size) used for PDFs that have none.
 *
 *   bun scripts/eval/documents.ts DIR [--max-pages 400] [--without-outline] [--quiet]
 *
 * With --formats (no DIR) it measures the other formats instead: see document-formats.ts; with
 * --ocr [--ocr-pdf FILE --ocr-pages N], OCR accuracy and cost: see document-ocr.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument, PDFName } from "pdf-lib";
import { extractTextItems, getDocumentProxy } from "unpdf";
import { chunkDocument } from "../../src/documents/chunking";
import { DocumentInputError, parseDocument } from "../../src/documents/parsing";
import { normalisedTitle } from "../../src/documents/parsing/pdf-outline.ts";
import { furnitureKey } from "../../src/documents/parsing/pdf-furniture.ts";
import { pageLines } from "../../src/documents/parsing/pdf-lines.ts";
import { sharedEmbedder } from "../../test/support/sieve";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "max-pages": { type: "string", default: "400" },
    "without-outline": { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
    formats: { type: "boolean", default: false },
    ocr: { type: "boolean", default: false },
    "ocr-pdf": { type: "string" },
    "ocr-pages": { type: "string", default: "10" },
  },
});
if (args.ocr) {
  await (await import("./document-ocr.ts")).evalOcr({ pdf: args["ocr-pdf"], pages: Number(args["ocr-pages"]) });
  process.exit(0);
}
if (args.formats) {
  await (await import("./document-formats.ts")).evalFormats();
  process.exit(0);
}
const dir = positionals[0];
if (!dir) {
  console.error("usage: bun scripts/eval/documents.ts DIR [--max-pages N] [--without-outline] [--quiet]");
  process.exit(2);
}
const MAX_PAGES = Number(args["max-pages"]);

type OutlineNode = { title: string; items: OutlineNode[] };

/** Running lines shorter than this (letters and spaces, numbers blurred) are not looked for in chunks: "#" alone would match any number. */
const MIN_RUNNING_LINE_CHARS = 8;

/** Lines that open or close at least a quarter of the pages (3 at least), as furnitureKey gives them. */
async function runningLines(pdf: Awaited<ReturnType<typeof getDocumentProxy>>): Promise<string[]> {
  const { items } = await extractTextItems(pdf);
  const pagesByKey = new Map<string, number>();
  for (const lines of items.map(pageLines)) {
    const ends = new Set([lines[0], lines.at(-1)].flatMap((line) => (line ? [furnitureKey(line.text)] : [])));
    for (const key of ends) pagesByKey.set(key, (pagesByKey.get(key) ?? 0) + 1);
  }
  const least = Math.max(3, items.length / 4);
  return [...pagesByKey].filter(([key, pages]) => pages >= least && key.replace(/[#\s]/g, "").length >= MIN_RUNNING_LINE_CHARS).map(([key]) => key);
}

/** Normalised titles of every bookmark, depth first, and the running lines (none when pdf.js cannot open the file). */
async function outlineTitles(bytes: Uint8Array): Promise<{ pages: number; titles: string[]; running: string[] }> {
  const pdf = await getDocumentProxy(bytes.slice(), { verbosity: 0 }).catch(() => null);
  if (!pdf) return { pages: 0, titles: [], running: [] };
  try {
    const outline = ((await pdf.getOutline()) ?? []) as OutlineNode[];
    const titles: string[] = [];
    const walk = (nodes: OutlineNode[]) => {
      for (const node of nodes) {
        const title = normalisedTitle(node.title);
        if (title) titles.push(title);
        walk(node.items ?? []);
      }
    };
    walk(outline);
    return { pages: pdf.numPages, titles, running: await runningLines(pdf) };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function withoutOutline(bytes: Uint8Array): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
  pdf.catalog.delete(PDFName.of("Outlines"));
  return pdf.save();
}

type FileResult = { file: string; pages: number; outline: number; recovered: number; chunks: number; tables: number; withRunningLine: number; seconds: number; error?: string; refused?: boolean };

const embedder = await sharedEmbedder();
const countTokens = (text: string) => embedder.countTokens(text);
const files = readdirSync(dir).filter((name) => name.toLowerCase().endsWith(".pdf")).sort();
const results: FileResult[] = [];

for (const file of files) {
  const bytes = new Uint8Array(readFileSync(join(dir, file)));
  const result: FileResult = { file, pages: 0, outline: 0, recovered: 0, chunks: 0, tables: 0, withRunningLine: 0, seconds: 0 };
  try {
    const truth = await outlineTitles(bytes);
    result.pages = truth.pages;
    if (truth.pages > MAX_PAGES) {
      if (!args.quiet) console.log(`skip ${file}: ${truth.pages} pages > --max-pages ${MAX_PAGES}`);
      continue;
    }
    const started = performance.now();
    const parsed = await parseDocument(file, args["without-outline"] ? await withoutOutline(bytes) : bytes);
    const chunks = await chunkDocument(parsed, { strategy: "recursive", chunkSize: 512, chunkOverlap: 50, countTokens });
    result.seconds = (performance.now() - started) / 1000;
    const headings = new Set(chunks.flatMap((chunk) => chunk.section_hierarchy.map(normalisedTitle)));
    result.outline = truth.titles.length;
    result.recovered = truth.titles.filter((title) => headings.has(title)).length;
    result.chunks = chunks.length;
    result.tables = chunks.filter((chunk) => chunk.chunk_type === "table").length;
    result.withRunningLine = chunks.filter((chunk) => {
      const texts = [chunk.text, ...chunk.section_hierarchy].map(furnitureKey);
      return truth.running.some((line) => texts.some((text) => text.includes(line)));
    }).length;
  } catch (error) {
    result.refused = error instanceof DocumentInputError;
    result.error = error instanceof Error ? error.message : String(error);
  }
  results.push(result);
  if (!args.quiet) console.log(row(result));
}

function pct(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(0)}%`;
}

function row(r: FileResult): string {
  if (r.error) return `| ${r.file} | ${r.pages} | ${r.refused ? "refused" : "FAILED"}: ${r.error} |`;
  return `| ${r.file} | ${r.pages} | ${r.recovered}/${r.outline} (${pct(r.recovered, r.outline)}) | ${r.tables}/${r.chunks} (${pct(r.tables, r.chunks)}) | ${r.withRunningLine} (${pct(r.withRunningLine, r.chunks)}) | ${(r.pages / r.seconds).toFixed(1)} |`;
}

const ok = results.filter((r) => !r.error);
const sum = (pick: (r: FileResult) => number) => ok.reduce((total, r) => total + pick(r), 0);
const tableShares = ok.filter((r) => r.chunks > 0).map((r) => r.tables / r.chunks).sort((a, b) => a - b);
const median = tableShares.length ? tableShares[Math.floor(tableShares.length / 2)] : 0;
console.log("\n| files | pages | with outline | outline titles recovered | table chunks | median table share per file | chunks with a running header | pages/s | refused (4xx) | failures |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
console.log(
  `| ${results.length} | ${sum((r) => r.pages)} | ${ok.filter((r) => r.outline > 0).length} | ${sum((r) => r.recovered)}/${sum((r) => r.outline)} (${pct(sum((r) => r.recovered), sum((r) => r.outline))}) | ` +
    `${sum((r) => r.tables)}/${sum((r) => r.chunks)} (${pct(sum((r) => r.tables), sum((r) => r.chunks))}) | ${(100 * median).toFixed(0)}% | ${sum((r) => r.withRunningLine)}/${sum((r) => r.chunks)} (${((100 * sum((r) => r.withRunningLine)) / Math.max(1, sum((r) => r.chunks))).toFixed(1)}%) | ${(sum((r) => r.pages) / sum((r) => r.seconds)).toFixed(1)} | ${results.filter((r) => r.refused).length} | ${results.filter((r) => r.error && !r.refused).length} |`,
);
for (const failed of results.filter((r) => r.error)) console.log(`${failed.refused ? "refused" : "FAILED"} ${failed.file}: ${failed.error}`);
process.exit(0);
