/**
 * Chunk flags (issue #51) on the project's data-channel dev set (firewall-data-channel-set.ts: written
 * for Sieve, never fitted on): every row uploaded as a document of its kind (e-mail as .eml, web page
 * as .html, tool result as .json, document as .md, search results as .txt) to a real in-process
 * Sieve with the defaults, and read back through the chunks endpoint. A row counts as flagged when
 * one of its chunks is (metadata.injection verdict block). Then benign technical documentation, full
 * of instructions to its reader: the real files of test/fixtures/real and the generated manuals of
 * the retrieval corpus, per chunk. Prints markdown tables, as docs/documents.md reports them.
 *
 *   bun scripts/eval/chunk-flags.ts [--chunk-size 512]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DocumentsClient } from "../../test/documents/api-client";
import { startSieve } from "../../test/support/sieve";
import { dataChannelRows, type DataChannelRow } from "./firewall-data-channel-set";
import { percent } from "./firewall-metrics";
import { retrievalCorpus } from "./retrieval-corpus";

const { values: args } = parseArgs({ options: { "chunk-size": { type: "string", default: "512" } } });
const EXTENSIONS: Record<string, string> = { email: "eml", "web page": "html", "tool result": "json", document: "md", "search results": "txt" };

const sieve = await startSieve({ logLevel: "warn" });
try {
  const api = new DocumentsClient(sieve.url, await sieve.tenant("eval"));
  const rows = dataChannelRows();
  const outcomes: { row: DataChannelRow; flagged: boolean; chunks: number }[] = [];
  const started = performance.now();
  for (const row of rows) {
    const upload = await api.uploadCompleted(`${row.id}.${EXTENSIONS[row.wrapper]}`, row.text, { chunk_size: args["chunk-size"]! });
    const chunks = await api.allChunks(upload.variant_id);
    outcomes.push({ row, flagged: chunks.some((chunk) => chunk.metadata.injection?.verdict === "block"), chunks: chunks.length });
  }
  const rate = (list: typeof outcomes) => (list.length ? `${percent(list.filter((o) => o.flagged).length / list.length)} (${list.filter((o) => o.flagged).length}/${list.length})` : "–");
  console.log(`\n### Chunk flags on the data-channel dev set (${rows.length} documents, chunk_size ${args["chunk-size"]}, ${outcomes.reduce((n, o) => n + o.chunks, 0)} chunks, ${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
  console.log("| wrapper (uploaded as) | injected: flagged | plain: flagged | person-addressed requests: flagged |\n|---|---|---|---|");
  for (const wrapper of [...Object.keys(EXTENSIONS), "all"]) {
    const some = outcomes.filter((o) => wrapper === "all" || o.row.wrapper === wrapper);
    const kind = (k: DataChannelRow["kind"]) => some.filter((o) => o.row.kind === k);
    const label = wrapper === "all" ? "all" : `${wrapper} (.${EXTENSIONS[wrapper]})`;
    console.log(`| ${label} | ${rate(kind("injected"))} | ${rate(kind("plain"))} | ${rate(kind("human-request"))} |`);
  }
  for (const position of ["start", "middle", "end"]) console.log(`injected at the ${position}: ${rate(outcomes.filter((o) => o.row.position === position && o.row.kind === "injected"))} flagged`);
  console.log(`instructions about the answer that name no AI: ${rate(outcomes.filter((o) => o.row.kind === "answer-instruction"))} flagged; requests about a reply addressed to a person: ${rate(outcomes.filter((o) => o.row.kind === "reply-request"))}`);

  const realDir = join(import.meta.dir, "../../test/fixtures/real");
  const documentation = [
    ...readdirSync(realDir).filter((file) => file !== "README.md").map((file) => ({ name: `real: ${file}`, filename: file, bytes: readFileSync(join(realDir, file)) as Uint8Array | string })),
    ...retrievalCorpus(55, 12).manuals.map((manual) => ({ name: `generated manual: ${manual.filename}`, filename: manual.filename, bytes: manual.markdown as Uint8Array | string })),
  ];
  console.log("\n| benign documentation | chunks | flagged | flagged texts (start) |\n|---|---|---|---|");
  let total = 0;
  let flaggedTotal = 0;
  for (const doc of documentation) {
    const upload = await api.uploadCompleted(doc.filename, doc.bytes, { chunk_size: args["chunk-size"]! });
    const chunks = await api.allChunks(upload.variant_id);
    const flagged = chunks.filter((chunk) => chunk.metadata.injection?.verdict === "block");
    total += chunks.length;
    flaggedTotal += flagged.length;
    console.log(`| ${doc.name} | ${chunks.length} | ${flagged.length} | ${flagged.map((chunk) => chunk.text.slice(chunk.metadata.injection.window.offset, chunk.metadata.injection.window.offset + 60).replace(/\s+/g, " ")).join(" / ")} |`);
  }
  console.log(`| all | ${total} | ${flaggedTotal} (${percent(flaggedTotal / total)}) | |`);
} finally {
  await sieve.close();
}
