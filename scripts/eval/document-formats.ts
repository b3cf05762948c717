/**
 * eval:documents --formats — every format on files written by real tools (issue 53):
 * test/fixtures/converted/, made once by scripts/eval/make-format-fixtures.ts (LibreOffice
 * converting the project's DOCX fixtures to PDF, EPUB and PPTX and re-saving workbooks and a deck
 * as XLSX/PPTX; pdftoppm scans wrapped back into image-only PDFs), with what each should yield in
 * its manifest.json. E-mail (EML, MSG) and CSV have no such tool here: they come from
 * test/fixtures-gen, their structure known by construction.
 *
 * Per file and per format: sections recovered (expected headings, compared as normalisedTitle
 * does: case, punctuation and a leading number ignored, found on some chunk's section_hierarchy),
 * tables with the right rows × columns (each expected table matched to a distinct table found,
 * its pieces' rows summed, the header counted once), OCR character accuracy (scans: 1 − edit
 * distance / length of each page's known text, mean over pages) and pages/s of parse + chunk
 * (recursive, 512 tokens, the model's tokenizer; no embedding; the median of 3 runs, 1 for scans).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chunkDocument, type ChunkDraft } from "../../src/documents/chunking";
import { parseDocument, type ParsedDocument } from "../../src/documents/parsing";
import { normalisedTitle } from "../../src/documents/parsing/pdf-outline.ts";
import { SAMPLE_EMAIL, sampleCsv, sampleEml, sampleMsg } from "../../test/fixtures-gen/sample-formats";
import { sharedEmbedder } from "../../test/support/sieve";
import { characterAccuracy } from "../../test/support/text-accuracy";
import type { FixtureTruth, Table } from "./make-format-fixtures.ts";

const CONVERTED = join(import.meta.dir, "../../test/fixtures/converted");

type Case = Omit<FixtureTruth, "file"> & { filename: string; bytes: Uint8Array };
type Result = { case: Case; pages: number; sectionsFound: number; tablesRight: number; ocr: number | null; seconds: number; chunks: number };

function cases(): Case[] {
  const manifest = JSON.parse(readFileSync(join(CONVERTED, "manifest.json"), "utf8")) as { fixtures: FixtureTruth[] };
  const converted = manifest.fixtures.map(({ file, ...truth }) => ({ ...truth, filename: file, bytes: new Uint8Array(readFileSync(join(CONVERTED, file))) }));
  const generated = "test/fixtures-gen (no tool here writes this format)";
  return [
    ...converted,
    { format: "csv", madeBy: generated, ...sampleCsv(2000), sections: [], tables: [{ rows: 2001, columns: 4 }] },
    { format: "eml", madeBy: generated, ...sampleEml(), sections: [SAMPLE_EMAIL.subject, "Budget"], tables: [] },
    { format: "msg", madeBy: generated, ...sampleMsg(), sections: [SAMPLE_EMAIL.subject, "Budget"], tables: [] },
  ];
}

/** Table pieces grouped by table (a piece's last block), each table's rows summed over its pieces, header once. */
function tableShapes(chunks: ChunkDraft[]): Table[] {
  const byBlock = new Map<number, Table>();
  for (const chunk of chunks.filter((c) => c.table_metadata)) {
    const shape = chunk.table_metadata!;
    const header = shape.headers.length > 0 ? 1 : 0;
    const key = chunk.metadata.block_end;
    const seen = byBlock.get(key);
    byBlock.set(key, seen ? { rows: seen.rows + shape.rows - header, columns: shape.columns } : { rows: shape.rows, columns: shape.columns });
  }
  return [...byBlock.values()];
}

/** Expected tables that have a distinct found table of the same rows × columns. */
function rightTables(expected: Table[], found: Table[]): number {
  const left = [...found];
  return expected.filter((table) => {
    const i = left.findIndex((shape) => shape.rows === table.rows && shape.columns === table.columns);
    if (i >= 0) left.splice(i, 1);
    return i >= 0;
  }).length;
}

const pageText = (doc: ParsedDocument, page: number) => doc.blocks.filter((block) => block.page === page).map((block) => block.text).join("\n");
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const ratio = (part: number, whole: number) => (whole === 0 ? "–" : `${part}/${whole} (${((100 * part) / whole).toFixed(0)}%)`);

async function measure(c: Case, countTokens: (text: string) => number): Promise<Result> {
  const runs = c.pageTexts ? 1 : 3;
  const times: number[] = [];
  let parsed: ParsedDocument | null = null;
  let chunks: ChunkDraft[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    parsed = await parseDocument(c.filename, c.bytes);
    chunks = await chunkDocument(parsed, { strategy: "recursive", chunkSize: 512, chunkOverlap: 50, countTokens });
    times.push(performance.now() - started);
  }
  const headings = new Set(chunks.flatMap((chunk) => chunk.section_hierarchy.map(normalisedTitle)));
  return {
    case: c,
    pages: parsed!.pageCount,
    sectionsFound: c.sections.filter((title) => headings.has(normalisedTitle(title))).length,
    tablesRight: rightTables(c.tables, tableShapes(chunks)),
    ocr: c.pageTexts ? mean(c.pageTexts.map((known, i) => characterAccuracy(pageText(parsed!, i + 1), known))) : null,
    seconds: times.sort((a, b) => a - b)[Math.floor(runs / 2)]! / 1000,
    chunks: chunks.length,
  };
}

export async function evalFormats(): Promise<void> {
  const embedder = await sharedEmbedder();
  const countTokens = (text: string) => embedder.countTokens(text);
  // The OCR engine's start (~0.3 s) is paid before the first scan is timed, as in a running server.
  await parseDocument("warm-up.pdf", new Uint8Array(readFileSync(join(CONVERTED, "scan-gray.pdf"))));
  const results: Result[] = [];
  console.log("| file | made by | pages | sections recovered | tables right (rows × columns) | OCR character accuracy | chunks | pages/s |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const c of cases()) {
    const r = await measure(c, countTokens);
    results.push(r);
    console.log(
      `| ${c.filename} (${(c.bytes.length / 1024).toFixed(0)} KB) | ${c.madeBy} | ${r.pages} | ${ratio(r.sectionsFound, c.sections.length)} | ${ratio(r.tablesRight, c.tables.length)} | ${r.ocr === null ? "–" : `${(100 * r.ocr).toFixed(1)}%`} | ${r.chunks} | ${(r.pages / r.seconds).toFixed(1)} |`,
    );
  }
  console.log("\n| format | files | pages | sections recovered | tables right (rows × columns) | OCR character accuracy | pages/s |");
  console.log("|---|---|---|---|---|---|---|");
  for (const format of [...new Set(results.map((r) => r.case.format))]) {
    const of = results.filter((r) => r.case.format === format);
    const sum = (pick: (r: Result) => number) => of.reduce((total, r) => total + pick(r), 0);
    const ocr = of.flatMap((r) => (r.ocr === null ? [] : [r.ocr]));
    console.log(
      `| ${format === "scan" ? "scanned PDF (OCR)" : format} | ${of.length} | ${sum((r) => r.pages)} | ${ratio(sum((r) => r.sectionsFound), sum((r) => r.case.sections.length))} | ${ratio(sum((r) => r.tablesRight), sum((r) => r.case.tables.length))} | ${ocr.length ? `${(100 * mean(ocr)).toFixed(1)}%` : "–"} | ${(sum((r) => r.pages) / sum((r) => r.seconds)).toFixed(1)} |`,
    );
  }
}
