/**
 * Issue #28 (tracker 56), defect 5: no back-pressure on document jobs. Pending uploads piled up
 * without end, each holding its parsed blocks in memory (60 pending 4.2 MB uploads: 315 → 826 MB).
 * Now a workspace's pending documents and a server's queue are bounded (429 / 503 with
 * Retry-After, nothing stored), the queue's depth is in /metrics, and a pending upload's parse is
 * not kept in memory past a small budget: its file waits in the database.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { MemoryWatch } from "../support/memory-watch";
import { spawnServe, tenantFromCli, waitUntilReady, type ServeProcess } from "../support/process";
import { startSieve, tempDir, type TestSieve } from "../support/sieve";
import { variedSentences } from "../fixtures-gen/large-docx";
import { DocumentsClient } from "../documents/api-client";

/** A markdown document of about `bytes` whose job takes many seconds (thousands of chunks to embed); `n` makes it unique. */
function longDocument(n: number, bytes: number): string {
  const text = variedSentences(bytes);
  const paragraphs: string[] = [`# Long document ${n}`];
  for (let at = 0; at < text.length; at += 2048) paragraphs.push(`Part ${n}.${at}: ${text.slice(at, at + 2048)}`);
  return paragraphs.join("\n\n");
}

async function metricValue(url: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("document back-pressure (bounded queues)", () => {
  let sieve: TestSieve;
  afterAll(() => sieve?.close());

  test("a workspace past its bound gets 429, the server past its bound 503, both with Retry-After; nothing refused is stored", async () => {
    sieve = await startSieve({ maxPendingDocumentsPerWorkspace: 2, maxPendingDocuments: 3 });
    const a = new DocumentsClient(sieve.url, await sieve.tenant("a"));
    const b = new DocumentsClient(sieve.url, await sieve.tenant("b"));

    // Two long jobs of workspace a: one runs, one waits.
    const first = await a.uploadFile("long-1.md", longDocument(1, 3_000_000));
    expect(first.status).toBe(202);
    const firstBody: any = await first.json();
    expect((await a.uploadFile("long-2.md", longDocument(2, 3_000_000))).status).toBe(202);

    const refused = await a.uploadFile("small.md", "# Small\n\nA short note.\n");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const refusedBody: any = await refused.json();
    expect(refusedBody.code).toBe("too_many_pending_documents");
    expect(refusedBody.detail).toContain("--max-pending-documents-per-workspace");
    // JSON uploads and new variants of an existing document are new work too.
    expect((await a.uploadJson({ filename: "small.md", text: "# Small\n\nA short note.\n" })).status).toBe(429);
    const variant = await a.post(`/api/documents/${firstBody.document_id}/variants`, { chunk_size: 256 });
    expect(variant.status).toBe(429);
    const listed = await a.getJson("/api/documents");
    expect(listed.documents.map((d: any) => d.filename).sort()).toEqual(["long-1.md", "long-2.md"]);

    // Workspace b is not held to a's bound, but the server's queue fills up: 1 running + 2 queued.
    expect((await b.uploadFile("long-3.md", longDocument(3, 3_000_000))).status).toBe(202);
    const full = await b.uploadFile("small.md", "# Small\n\nAnother short note.\n");
    expect(full.status).toBe(503);
    expect(Number(full.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await full.json()) as any).code).toBe("document_queue_full");
    expect((await b.getJson("/api/documents")).documents).toHaveLength(1);

    expect(await metricValue(sieve.url, "sieve_document_jobs_running")).toBe(1);
    expect(await metricValue(sieve.url, "sieve_document_jobs_queued")).toBe(2);
    expect(await metricValue(sieve.url, "sieve_document_uploads_in_progress")).toBe(0);
    expect(await metricValue(sieve.url, 'sieve_document_uploads_refused_total{reason="workspace_queue_full"}')).toBe(3);
    expect(await metricValue(sieve.url, 'sieve_document_uploads_refused_total{reason="server_queue_full"}')).toBe(1);

    // Room again once the pending documents are gone: their queued job leaves the queue, the running one stops.
    for (const document of listed.documents) expect((await a.delete(`/api/documents/${document.id}`)).status).toBe(200);
    const again = await a.uploadFile("small.md", "# Small\n\nA short note.\n");
    expect([201, 202]).toContain(again.status);
    const stopped = () => sieve.logs.some((line) => line.includes("document variant deleted while it was processed") && line.includes(firstBody.variant_id));
    for (let i = 0; i < 3000 && !stopped(); i++) await Bun.sleep(10);
    expect(stopped()).toBe(true);
  }, 120_000);
});

describe("pending uploads wait in the database, not in memory", () => {
  let serve: ServeProcess | undefined;
  let watch: MemoryWatch | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    watch?.stop();
    if (serve && serve.child.exitCode === null) serve.child.kill("SIGKILL");
    await serve?.child.exited;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("64 uploads of 3 MB sent at once take their turns: the server's peak memory stays small, and pending ones wait in the database", async () => {
    dataDir = tempDir("sieve-backpressure-");
    const tenant = await tenantFromCli(dataDir);
    serve = await spawnServe(["--data-dir", dataDir, "--log-level", "debug"]);
    await waitUntilReady(serve.url);
    watch = new MemoryWatch(serve.child);
    const api = new DocumentsClient(serve.url, tenant);
    await api.uploadCompleted("warm-up.md", "# Warm up\n\nLoads the tokenizer and the parsers.\n");
    // A long job keeps the worker busy: every upload after it stays pending. The baseline is taken
    // once it embeds (its chunking, which grows its memory, is over).
    const long = await api.uploadFile("long-0.md", longDocument(0, 3_000_000));
    expect(long.status).toBe(202);
    const longVariant: string = ((await long.json()) as any).variant_id;
    const embedding = () => serve!.output().split("\n").some((line) => line.includes('"msg":"document variant progress"') && line.includes(longVariant));
    for (let i = 0; i < 6000 && !embedding(); i++) await Bun.sleep(20);
    expect(embedding()).toBe(true);

    const files = Array.from({ length: 64 }, (_, i) => longDocument(i + 1, 3_000_000));
    const baseline = watch.start(2_000);
    // As a client should: an upload told to come back (503 uploads_busy) comes back after Retry-After.
    const upload = async (text: string, i: number): Promise<number> => {
      for (;;) {
        const response = await api.uploadFile(`pending-${i}.md`, text);
        if (response.status !== 503) return response.status;
        expect(((await response.json()) as any).code).toBe("uploads_busy");
        await Bun.sleep(Number(response.headers.get("retry-after")) * 1000);
      }
    };
    const statuses = await Promise.all(files.map(upload));
    expect(statuses.every((status) => status === 202)).toBe(true);
    const peak = watch.peakMb() - baseline;
    const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(await Bun.file(`/proc/${serve.child.pid}/status`).text())![1]) / 1024;
    console.log(`64 parallel 3 MB uploads: peak RSS +${Math.round(peak)} MB, after +${Math.round(rssMb - baseline)} MB over ${Math.round(baseline)} MB`);
    expect(watch.killedAtMb).toBeNull();
    const documents = (await api.getJson("/api/documents?limit=100")).documents;
    expect(documents.filter((d: any) => d.status === "pending").length).toBeGreaterThanOrEqual(63);
    // Each pending upload used to keep its parse (about twice its size) until its job ran: 64 of
    // them, +550 MB of server RSS once the uploads were over. Now at most 32 MiB of files' parses
    // are kept; the others wait in the database and are parsed again by their jobs.
    const kept = await metricValue(serve.url, "sieve_document_kept_parse_bytes");
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(await metricValue(serve.url, "sieve_document_jobs_queued")).toBeGreaterThanOrEqual(63);
    expect(rssMb - baseline).toBeLessThan(1_000);
  }, 240_000);
});
