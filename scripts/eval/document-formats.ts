/**
 * eval:documents --formats — the non-PDF formats (issue 53) on files written by
 * test/fixtures-gen, whose structure is known by construction: per format, the share of expected
 * sections found on some chunk's section_hierarchy, the tables whose pieces add up to the right
 * rows and columns (header counted once), chunks, and documents/s and pages/s of parse + chunk
 * (recursive, 512 tokens, the model's tokenizer; no embedding; median of 5 runs).
 *
 * No office suite is installed where this runs, so the files are generated (ECMA-376, EPUB 3,
 * RFC 5322, [MS-OXMSG] layouts), not exported by Office or LibreOffice.
 */
import { chunkDocument, type ChunkDraft } from "../../src/documents/chunking";
import { parseDocument } from "../../src/documents/parsing";
import { makeEpub, makePptx, makeXlsx } from "../../test/fixtures-gen/make-ooxml";
import { SAMPLE_EMAIL, sampleCsv, sampleEml, sampleMsg, sampleXlsx } from "../../test/fixtures-gen/sample-formats";
import { sharedEmbedder } from "../../test/support/sieve";

type Table = { rows: number; columns: number };
type Case = { format: string; filename: string; bytes: Uint8Array; sections: string[]; tables: Table[] };

function deck(slides: number): Case {
  const spec = Array.from({ length: slides }, (_, i) => ({
    title: `Topic ${i + 1}: quarterly review of area ${i + 1}`,
    bullets: [`Revenue in area ${i + 1} grew by ${i + 3} percent over the quarter.`, `Hiring for area ${i + 1} continues in the next quarter.`],
    ...(i % 3 === 0 ? { table: [["Metric", "Q1", "Q2"], ["Revenue", `${i}`, `${i + 1}`], ["Costs", "4", "5"], ["Staff", "7", "8"]] } : {}),
    notes: `Speaker reminder for topic ${i + 1}: stress the hiring plan.`,
    slideNumber: true,
  }));
  return {
    format: "pptx",
    filename: "deck.pptx",
    bytes: makePptx(spec),
    sections: [...spec.map((slide) => slide.title), "Speaker notes"],
    tables: spec.filter((slide) => slide.table).map(() => ({ rows: 4, columns: 3 })),
  };
}

function book(chapters: number): Case {
  const titles = Array.from({ length: chapters }, (_, i) => `Chapter ${i + 1}: the voyage, part ${i + 1}`);
  const body = (i: number) => Array.from({ length: 12 }, (_, p) => `<p>On day ${i * 12 + p} the ship sailed further south, and the crew measured the stars at night.</p>`).join("");
  return {
    format: "epub",
    filename: "book.epub",
    // Odd chapters carry their own <h1>; even ones rely on the table of contents.
    bytes: makeEpub("The Voyage", titles.map((title, i) => ({ title, body: (i % 2 ? `<h1>${title}</h1>` : "") + body(i) }))),
    sections: titles,
    tables: [],
  };
}

const cases: Case[] = [
  { format: "xlsx", ...sampleXlsx(2000), sections: ["Sales", "Prices"], tables: [{ rows: 2001, columns: 5 }, { rows: 3, columns: 3 }] },
  { format: "csv", ...sampleCsv(2000), sections: [], tables: [{ rows: 2001, columns: 4 }] },
  deck(30),
  book(20),
  { format: "eml", ...sampleEml(), sections: [SAMPLE_EMAIL.subject, "Budget"], tables: [] },
  { format: "msg", ...sampleMsg(), sections: [SAMPLE_EMAIL.subject, "Budget"], tables: [] },
];

/** Table pieces grouped by table (a piece's first block), each table's rows summed over its pieces, header once. */
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

export async function evalFormats(): Promise<void> {
  const embedder = await sharedEmbedder();
  const countTokens = (text: string) => embedder.countTokens(text);
  console.log("| format | file | pages | sections found | tables with right rows × columns | chunks | ms per document (median of 5) | pages/s |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const c of cases) {
    const times: number[] = [];
    let chunks: ChunkDraft[] = [];
    let pages = 1;
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      const parsed = await parseDocument(c.filename, c.bytes);
      chunks = await chunkDocument(parsed, { strategy: "recursive", chunkSize: 512, chunkOverlap: 50, countTokens });
      times.push(performance.now() - started);
      pages = parsed.pageCount;
    }
    const ms = times.sort((a, b) => a - b)[2];
    const headings = new Set(chunks.flatMap((chunk) => chunk.section_hierarchy));
    const found = c.sections.filter((title) => headings.has(title)).length;
    const shapes = tableShapes(chunks);
    const right = c.tables.filter((table, i) => shapes[i]?.rows === table.rows && shapes[i]?.columns === table.columns).length;
    const kb = (c.bytes.length / 1024).toFixed(0);
    console.log(`| ${c.format} | ${c.filename} (${kb} KB) | ${pages} | ${found}/${c.sections.length} | ${right}/${c.tables.length} | ${chunks.length} | ${ms.toFixed(1)} | ${(pages / (ms / 1000)).toFixed(1)} |`);
  }
}
