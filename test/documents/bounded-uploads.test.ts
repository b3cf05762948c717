/**
 * Issue #17, defects 1 and 5 (upload half): no upload may take the host's memory or hold the
 * event loop. Each test runs `sieve serve` as its own process and reads the kernel's peak RSS
 * of that process (VmHWM); a watchdog kills the server if it passes the allowance, so a broken
 * bound fails the test instead of exhausting the machine.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { docxBomb } from "../fixtures-gen/docx-bomb";
import { largeDocx, variedSentences } from "../fixtures-gen/large-docx";
import { MemoryWatch } from "../support/memory-watch";
import { spawnServe, tenantFromCli, waitUntilReady, type ServeProcess } from "../support/process";
import { tempDir } from "../support/sieve";
import { pdfFlateBomb } from "../fixtures-gen/pdf-bomb";
import { sampleDocx } from "../fixtures-gen/sample-documents";
import { DocumentsClient } from "./api-client";

type Server = { serve: ServeProcess; api: DocumentsClient; watch: MemoryWatch; dataDir: string };
const servers: Server[] = [];

afterEach(async () => {
  for (const { serve, watch, dataDir } of servers.splice(0)) {
    watch.stop();
    if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
    await serve.child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** A fresh server (its own data dir and job queue) with one tenant, warmed up by a small upload. */
async function serve(args: string[] = []): Promise<Server> {
  const dataDir = tempDir("sieve-bounded-");
  const tenant = await tenantFromCli(dataDir);
  const started = await spawnServe(["--data-dir", dataDir, "--log-level", "debug", ...args]);
  const server = { serve: started, api: new DocumentsClient(started.url, tenant), watch: new MemoryWatch(started.child), dataDir };
  servers.push(server);
  await waitUntilReady(started.url);
  await server.api.uploadCompleted("warm-up.md", "# Warm up\n\nA first small document loads the tokenizer and the parsers.\n");
  return server;
}

/** Uploads and measures the server's peak RSS above its RSS before the upload (MB). */
async function peakDuring(server: Server, label: string, allowedMb: number, run: () => Promise<void>): Promise<number> {
  Bun.gc(true);
  const baseline = server.watch.start(allowedMb);
  await run();
  const peak = server.watch.peakMb() - baseline;
  console.log(`${label}: peak RSS +${Math.round(peak)} MB over ${Math.round(baseline)} MB`);
  expect(server.watch.killedAtMb).toBeNull();
  return peak;
}

/** A refused upload leaves no document (hence no version, variant or job) behind. */
async function expectNothingStored(api: DocumentsClient): Promise<void> {
  const listed = await api.getJson("/api/documents");
  expect(listed.documents.map((document: any) => document.filename)).toEqual(["warm-up.md"]);
}

/** Plain words, no sentence punctuation and no blank line: one 10 MB paragraph. */
function plainWords(bytes: number): string {
  const words = ["alpha", "river", "stone", "light", "paper", "north", "quiet", "maple", "cloud", "ember"];
  const parts: string[] = [];
  for (let length = 0, i = 0; length < bytes; i++) {
    const word = `${words[(i * 7) % 10]}${i % 97}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ");
}

/** The server's log lines with this message about this variant. */
function logLines(serve: ServeProcess, message: string, variantId: string): string[] {
  return serve.output().split("\n").filter((line) => line.includes(`"msg":"${message}"`) && line.includes(variantId));
}

async function waitForLog(serve: ServeProcess, message: string, variantId: string, attempts = 30_000): Promise<void> {
  for (let i = 0; i < attempts && logLines(serve, message, variantId).length === 0; i++) {
    if (serve.child.exitCode !== null) throw new Error(`server exited while waiting for ${message}`);
    await Bun.sleep(10);
  }
  expect(logLines(serve, message, variantId).length).toBeGreaterThan(0);
}

describe("decompression bombs are refused while inflating, naming the limit, storing nothing", () => {
  const MiB = 1024 * 1024;
  const cases = [
    { name: "a DOCX whose document.xml inflates to 256 MiB", file: "bomb.docx", make: () => docxBomb(256 * MiB), args: [], status: 422, error: "compression_ratio_too_high" },
    { name: "a DOCX bomb whose headers declare 4 KB", file: "liar.docx", make: () => docxBomb(200 * MiB, { declareSmall: true }), args: [], status: 422, error: "compression_ratio_too_high" },
    {
      name: "the lying DOCX bomb with the ratio allowed",
      file: "liar.docx",
      make: () => docxBomb(200 * MiB, { declareSmall: true }),
      args: ["--max-compression-ratio", "100000"],
      status: 413,
      error: "decompressed_too_large",
      flag: "--max-docx-xml-bytes",
    },
    { name: "a PDF whose page content is a 200 MiB Flate bomb", file: "bomb.pdf", make: () => pdfFlateBomb(200 * MiB), args: [], status: 422, error: "compression_ratio_too_high" },
    {
      name: "the same PDF with the ratio allowed and an 8 MiB size limit",
      file: "bomb.pdf",
      make: () => pdfFlateBomb(200 * MiB),
      args: ["--max-compression-ratio", "100000", "--max-decompressed-bytes", String(8 * MiB)],
      status: 413,
      error: "decompressed_too_large",
      flag: "--max-decompressed-bytes",
    },
  ];
  for (const { name, file, make, args, status, error, flag = "--max-compression-ratio" } of cases) {
    test(`${name}: ${status} ${error}`, async () => {
      const server = await serve(args);
      const bomb = await make();
      let response: Response | undefined;
      const peak = await peakDuring(server, name, 1024, async () => {
        response = await server.api.uploadFile(file, bomb);
      });
      const body: any = await response!.json();
      expect({ status: response!.status, code: body.code }).toEqual({ status, code: error });
      expect(body.detail).toContain(flag);
      expect(peak).toBeLessThan(300);
      await expectNothingStored(server.api);
    }, 180_000);
  }
});

describe("large plain text", () => {
  // Memory bounds, not timings: the allowance is what the issue asks ("well under +1 GB").
  for (const [name, text] of [
    ["10 MB of plain words in one paragraph", () => plainWords(10 * 1024 * 1024)],
    ["5 MB of varied sentences", () => variedSentences(5 * 1024 * 1024)],
  ] as const) {
    test(`${name}: accepted, parsed and chunked within +600 MB of the server's RSS`, async () => {
      const server = await serve();
      const body = text();
      let status = 0;
      const peak = await peakDuring(server, name, 1024, async () => {
        const response = await server.api.uploadFile("large.txt", body);
        status = response.status;
        const { variant_id } = (await response.json()) as { variant_id: string };
        // Logged after the first embedding batch, i.e. once parsing and chunking are done.
        await waitForLog(server.serve, "document variant progress", variant_id);
      });
      expect([201, 202]).toContain(status);
      expect(peak).toBeLessThan(600);
    }, 600_000);
  }
});

test("/healthz is answered while a 2 MB upload is being chunked (the job yields between slices)", async () => {
  const server = await serve();
  const chunkedLines = () => server.serve.output().split("\n").filter((line) => line.includes('"msg":"document variant chunked"')).length;
  const warmUpChunked = chunkedLines();
  const upload = server.api.uploadFile("two-megabytes.txt", variedSentences(2 * 1024 * 1024));
  const polling = (async () => {
    while (chunkedLines() === warmUpChunked && server.serve.child.exitCode === null) {
      await fetch(`${server.serve.url}/healthz`);
      await Bun.sleep(5);
    }
  })();
  const response = await upload;
  expect([201, 202]).toContain(response.status);
  const { variant_id } = (await response.json()) as { variant_id: string };
  await waitForLog(server.serve, "document variant chunked", variant_id);
  await polling;
  // The server's own log orders what happened on its one thread: requests answered between the
  // job's "chunking" and "chunked" lines were served while the document was being chunked.
  const lines = server.serve.output().split("\n");
  const chunking = lines.findIndex((line) => line.includes('"msg":"document variant chunking"') && line.includes(variant_id));
  const chunked = lines.findIndex((line) => line.includes('"msg":"document variant chunked"') && line.includes(variant_id));
  expect(chunking).toBeGreaterThan(0);
  expect(chunked).toBeGreaterThan(chunking);
  const healthzMeanwhile = lines.slice(chunking, chunked).filter((line) => line.includes('"path":"/healthz"'));
  expect(healthzMeanwhile.length).toBeGreaterThan(0);
}, 600_000);

describe("DOCX is read in its own thread, under a watchdog", () => {
  const parseLines = (serve: ServeProcess, message: string, filename: string) =>
    serve.output().split("\n").flatMap((line, at) => (line.includes(`"msg":"${message}"`) && line.includes(`"filename":"${filename}"`) ? [at] : []));

  test("/healthz is answered while a DOCX with 1.4 MB of text is being parsed", async () => {
    const server = await serve();
    const docx = await largeDocx();
    const upload = server.api.uploadFile("large.docx", docx);
    const polling = (async () => {
      while (parseLines(server.serve, "document parsed", "large.docx").length === 0 && server.serve.child.exitCode === null) {
        await fetch(`${server.serve.url}/healthz`);
        await Bun.sleep(5);
      }
    })();
    const response = await upload;
    expect([201, 202]).toContain(response.status);
    await polling;
    // The server's own log orders what happened on its one thread: /healthz requests answered
    // between the "parsing" and "parsed" lines were served while mammoth read the document.
    const lines = server.serve.output().split("\n");
    const [parsing] = parseLines(server.serve, "document parsing", "large.docx");
    const [parsed] = parseLines(server.serve, "document parsed", "large.docx");
    expect(parsing).toBeGreaterThan(0);
    expect(parsed).toBeGreaterThan(parsing!);
    expect(lines.slice(parsing, parsed).filter((line) => line.includes('"path":"/healthz"')).length).toBeGreaterThan(0);
  }, 600_000);

  test("a parse growing the server's memory past --max-parse-memory-bytes: 422 naming the flag, nothing stored, the next DOCX is read", async () => {
    // ~6 MB of text grows the process by ~120 MB while read; the small sample DOCX by a few MB.
    const server = await serve(["--max-parse-memory-bytes", String(32 * 1024 * 1024)]);
    const response = await server.api.uploadFile("large.docx", await largeDocx(6 * 1024 * 1024));
    const body: any = await response.json();
    expect({ status: response.status, code: body.code }).toEqual({ status: 422, code: "parse_memory_exceeded" });
    expect(body.detail).toContain("--max-parse-memory-bytes");
    await expectNothingStored(server.api);
    const sample = await sampleDocx();
    const next = await server.api.uploadCompleted(sample.filename, sample.bytes);
    const chunks = await server.api.allChunks(next.variant_id);
    expect(chunks.map((chunk: any) => chunk.text).join(" ")).toContain("Deliveries leave the warehouses");
    // Another variant: its job reads the stored DOCX again, through the same thread and watchdog.
    const variant: any = await (await server.api.post(`/api/documents/${next.document_id}/variants`, { chunking_strategy: "recursive", chunk_size: 48, chunk_overlap: 0 })).json();
    expect((await server.api.waitForVariant(variant.id)).chunks_count).toBeGreaterThan(chunks.length);
    expect(parseLines(server.serve, "document parsed", sample.filename)).toHaveLength(2);
  }, 600_000);

  test("a parse running past --parse-timeout-ms: 422 naming the flag, nothing stored, other uploads still served", async () => {
    const server = await serve(["--parse-timeout-ms", "1"]);
    const response = await server.api.uploadFile("large.docx", await largeDocx());
    const body: any = await response.json();
    expect({ status: response.status, code: body.code }).toEqual({ status: 422, code: "parse_timeout" });
    expect(body.detail).toContain("--parse-timeout-ms");
    await expectNothingStored(server.api);
    expect([201, 202]).toContain((await server.api.uploadFile("after.md", "# After\n\nThe server still reads other documents.\n")).status);
  }, 600_000);
});
