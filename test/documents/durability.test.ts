/**
 * Durable jobs: `sieve serve` as a real process, SIGKILLed in the middle of processing a large
 * document, then restarted on the same data dir.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { assetPaths } from "../../src/runtime/assets";
import { runCli, spawnServe, tenantFromCli as tenantFromCliOn, waitUntilReady, type ServeProcess } from "../support/process";
import { startSieve, tempDir } from "../support/sieve";
import { DocumentsClient } from "./api-client";
import { longMarkdown } from "./documents-gen";

const dataDir = tempDir("sieve-durability-");
const running: ServeProcess[] = [];

afterAll(async () => {
  for (const serve of running) if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
  await Promise.all(running.map((serve) => serve.child.exited));
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Chunk flags off: they run between the same checkpoints as embedding and more than double the
 * inference of these 2,350-chunk jobs (docs/documents.md), which the jobs here need not pay twice
 * over; test/documents/chunk-flags.test.ts covers them.
 */
async function serve(): Promise<ServeProcess> {
  const started = await spawnServe(["--data-dir", dataDir, "--log-level", "debug", "--firewall-document-chunks", "false"]);
  running.push(started);
  await waitUntilReady(started.url);
  return started;
}

const tenantFromCli = (workspaceId?: string) => tenantFromCliOn(dataDir, workspaceId);

/** Reads the data dir directly, as the files are after the kill. */
function inspect<T>(read: (db: Database) => T): T {
  const db = new Database(join(dataDir, "sieve.db"));
  try {
    db.loadExtension(assetPaths().vecExtension, "sqlite3_vec_init");
    return read(db);
  } finally {
    db.close();
  }
}

const count = (db: Database, sql: string, ...params: string[]) => (db.query(sql).get(...params) as { n: number }).n;

describe("a job killed mid-way", () => {
  test("SIGKILL during processing leaves no chunk visible; the restarted server finishes the job exactly once", async () => {
    const tenant = await tenantFromCli();
    // Large enough that native inference on 2 threads is still busy well past the 2 s synchronous wait.
    const document = longMarkdown(21, 300);
    let server = await serve();
    let api = new DocumentsClient(server.url, tenant);

    const response = await api.uploadFile("large.md", document, { chunk_size: 32, chunk_overlap: 4 });
    expect(response.status).toBe(202);
    const upload: any = await response.json();
    expect(["pending", "processing"]).toContain(upload.status);

    // Kill once some embedding batches are done but before the variant is written.
    for (let i = 0; i < 2000 && !server.output().includes('"msg":"document variant progress"'); i++) await Bun.sleep(10);
    expect(server.output()).toContain('"msg":"document variant progress"');
    const early = await api.get(`/api/documents/variants/${upload.variant_id}/chunks`);
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ code: "variant_not_ready", status_code: 409, status: "processing" });
    server.child.kill("SIGKILL");
    await server.child.exited;
    expect(server.output()).not.toContain('"msg":"document variant completed"');

    const afterKill = inspect((db) => ({
      status: (db.query("select status from document_variants where id = ?1").get(upload.variant_id) as { status: string }).status,
      chunks: count(db, "select count(*) as n from document_chunks where variant_id = ?1", upload.variant_id),
      vectors: count(db, "select count(*) as n from chunk_embeddings where workspace_id = ?1", tenant.workspaceId),
    }));
    expect(afterKill).toEqual({ status: "processing", chunks: 0, vectors: 0 });

    server = await serve();
    api = new DocumentsClient(server.url, tenant);
    expect(server.output()).toContain('"msg":"resuming document jobs"');
    const variant = await api.waitForVariant(upload.variant_id);
    expect(variant.attempts).toBe(2);
    const chunks = await api.allChunks(upload.variant_id, 1000);
    expect(chunks.length).toBe(variant.chunks_count);
    expect(chunks.map((chunk) => chunk.chunk_index)).toEqual(chunks.map((_, i) => i));
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(chunks.length);
    expect(
      inspect((db) => [
        count(db, "select count(*) as n from document_chunks where variant_id = ?1", upload.variant_id),
        count(db, "select count(*) as n from chunk_embeddings where workspace_id = ?1", tenant.workspaceId),
      ]),
    ).toEqual([chunks.length, chunks.length]);

    // The same bytes processed in one go (another workspace, so not a duplicate) give the same chunks.
    const witness = new DocumentsClient(server.url, await tenantFromCli((await runCliJson(["workspaces", "create", "--data-dir", dataDir, "--json"])).workspace_id));
    const fresh = await witness.uploadCompleted("large.md", document, { chunk_size: 32, chunk_overlap: 4 });
    expect((await witness.allChunks(fresh.variant_id, 1000)).map((chunk) => chunk.text)).toEqual(chunks.map((chunk) => chunk.text));
    expect((await api.getJson("/api/usage")).documents).toMatchObject({ variants_processed: 1, chunks_created: chunks.length });

    server.child.kill("SIGTERM");
    expect(await server.child.exited).toBe(0);
  });
});

describe("a write interrupted between its transactions", () => {
  test("chunks an earlier attempt left behind are replaced, never doubled or shown", async () => {
    const tenant = await tenantFromCli((await runCliJson(["workspaces", "create", "--data-dir", dataDir, "--json"])).workspace_id);
    let server = await serve();
    let api = new DocumentsClient(server.url, tenant);
    const small = await api.uploadCompleted("small.md", longMarkdown(2, 40), { chunk_size: 32, chunk_overlap: 4 });
    const response = await api.uploadFile("large.md", longMarkdown(21, 300), { chunk_size: 32, chunk_overlap: 4 });
    const upload: any = await response.json();
    for (let i = 0; i < 2000 && !server.output().includes('"msg":"document variant progress"'); i++) await Bun.sleep(10);
    server.child.kill("SIGKILL");
    await server.child.exited;

    // What a kill after the first of several write transactions leaves: some chunk rows and vectors
    // of the still-processing variant (copies of another variant's, under the killed one's id).
    const leftovers = inspect((db) => {
      db.exec("PRAGMA foreign_keys = ON");
      const columns = (db.query("PRAGMA table_info(document_chunks)").all() as { name: string }[]).map((c) => c.name).filter((c) => c !== "seq");
      const copied = columns.map((c) => (c === "id" ? "lower(hex(randomblob(16)))" : c === "variant_id" ? "?1" : c)).join(", ");
      const sources = db.query("select seq from document_chunks where variant_id = ?1 order by chunk_index limit 3").all(small.variant_id) as { seq: number }[];
      for (const { seq } of sources) {
        const inserted = db.query(`insert into document_chunks (${columns.join(", ")}) select ${copied} from document_chunks where seq = ?2 returning seq`).get(upload.variant_id, seq) as { seq: number };
        db.query("insert into chunk_embeddings (chunk_seq, workspace_id, embedding, sign_bits) select ?1, workspace_id, embedding, sign_bits from chunk_embeddings where chunk_seq = ?2").run(inserted.seq, seq);
      }
      return count(db, "select count(*) as n from document_chunks where variant_id = ?1", upload.variant_id);
    });
    expect(leftovers).toBe(3);

    server = await serve();
    api = new DocumentsClient(server.url, tenant);
    expect((await api.get(`/api/documents/variants/${upload.variant_id}/chunks`)).status).toBe(409);
    const variant = await api.waitForVariant(upload.variant_id);
    expect(variant.status).toBe("completed");
    const chunks = await api.allChunks(upload.variant_id, 1000);
    expect(chunks.length).toBe(variant.chunks_count);
    expect(chunks.length).toBeGreaterThan(48); // more than two write transactions' worth
    expect(chunks.map((chunk) => chunk.chunk_index)).toEqual(chunks.map((_, i) => i));
    const smallChunks = (await api.allChunks(small.variant_id, 1000)).length;
    expect(
      inspect((db) => [
        count(db, "select count(*) as n from document_chunks where variant_id = ?1", upload.variant_id),
        count(db, "select count(*) as n from chunk_embeddings where workspace_id = ?1", tenant.workspaceId),
      ]),
    ).toEqual([chunks.length, chunks.length + smallChunks]);
    server.child.kill("SIGTERM");
    expect(await server.child.exited).toBe(0);
  });
});

describe("a graceful stop mid-job", () => {
  test("the job stops at a checkpoint without counting an attempt, and the next start completes it", async () => {
    const dir = tempDir("sieve-graceful-");
    const first = await startSieve({ dataDir: dir });
    const tenant = await first.tenant("graceful");
    const upload: any = await (await new DocumentsClient(first.url, tenant).uploadFile("large.md", longMarkdown(22, 300), { chunk_size: 32 })).json();
    for (let i = 0; i < 2000 && !first.logs.some((line) => line.includes('"msg":"document variant progress"')); i++) await Bun.sleep(10);
    await first.stop();
    // The same data (on PostgreSQL, the same database).
    const database = first.ctx.config.database;
    const second = await startSieve({ dataDir: dir, ...(database ? { database } : {}) });
    try {
      const variant = await new DocumentsClient(second.url, tenant).waitForVariant(upload.variant_id);
      expect(variant.attempts).toBe(1);
      expect(first.logs.some((line) => line.includes('"msg":"document variant completed"'))).toBe(false);
      expect(second.logs.some((line) => line.includes('"msg":"resuming document jobs"'))).toBe(true);
    } finally {
      await second.close();
    }
  });
});

async function runCliJson(args: string[]): Promise<any> {
  const { stdout, code, stderr } = await runCli(args);
  if (code !== 0) throw new Error(stderr);
  return JSON.parse(stdout);
}
