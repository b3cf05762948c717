/**
 * The document embedding process (src/embeddings/embedding-process.ts): a real child process with
 * its own model, compared byte for byte with the server's embedder, killed, broken and stopped.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { configWith } from "../../src/config";
import { EmbeddingProcess } from "../../src/embeddings/embedding-process";
import { Logger } from "../../src/logging/logger";
import { DocumentsClient } from "../documents/api-client";
import { longMarkdown } from "../documents/documents-gen";
import { spawnServe, waitUntilReady } from "../support/process";
import { sharedEmbedder, startSieve, tempDir } from "../support/sieve";

const TEXTS = ["What is the capital of France?", "Chunk two of a document about photosynthesis and the light reactions.", "ein dritter Text auf Deutsch"];

const bytes = (vectors: Float32Array[]) => vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64"));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  for (const started = Date.now(); Date.now() - started < ms; await Bun.sleep(25)) if (condition()) return;
  throw new Error(`timed out waiting for ${what}`);
}

function harness(overrides = {}, idleExitMs?: number, stuckBatchMs?: number) {
  const logs: string[] = [];
  let inlineCalls = 0;
  const inline = async (texts: string[]) => {
    inlineCalls++;
    return (await sharedEmbedder()).embedMany(texts);
  };
  const process = new EmbeddingProcess(configWith({ ...overrides }), new Logger("debug", (line) => logs.push(line)), inline, { idleExitMs, stuckBatchMs });
  return { process, logs, inlineCalls: () => inlineCalls };
}

describe("document embedding process", () => {
  const started: EmbeddingProcess[] = [];
  afterAll(() => Promise.all(started.map((p) => p.stop())));

  test("batches run inline until the child has its model, then in the child, with byte-identical vectors", async () => {
    const { process: child, inlineCalls } = harness();
    started.push(child);
    const expected = bytes(await (await sharedEmbedder()).embedMany(TEXTS));

    expect(bytes(await child.embedMany(TEXTS))).toEqual(expected); // first batch: the child is only starting
    expect(inlineCalls()).toBe(1);
    expect(child.pid).toBeNumber();
    await until(() => child.ready, "the child to load its model");

    expect(bytes(await child.embedMany(TEXTS))).toEqual(expected);
    expect(inlineCalls()).toBe(1); // the second batch went to the child
    expect(child.pid).not.toBe(process.pid);
  });

  test("a child killed under a batch: the batch is answered inline, the next one starts a new child", async () => {
    const { process: child, inlineCalls } = harness();
    started.push(child);
    await child.embedMany(TEXTS);
    await until(() => child.ready, "the child to load its model");
    const first = child.pid!;

    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${"the committee reviewed the annual budget and the staffing plan ".repeat(6)}`);
    const pending = child.embedMany(long);
    await Bun.sleep(50);
    process.kill(first, "SIGKILL");
    const vectors = await pending;
    expect(bytes(vectors)).toEqual(bytes(await (await sharedEmbedder()).embedMany(long)));
    expect(inlineCalls()).toBe(2);

    await child.embedMany(TEXTS); // starts a replacement
    expect(child.pid).toBeNumber();
    expect(child.pid).not.toBe(first);
  });

  test("a stuck child (stopped by SIGSTOP) is killed after stuckBatchMs and its batch answered inline", async () => {
    const { process: child, logs, inlineCalls } = harness({}, undefined, 1_000);
    started.push(child);
    await child.embedMany(TEXTS);
    await until(() => child.ready, "the child to load its model");
    const stuck = child.pid!;
    process.kill(stuck, "SIGSTOP");
    const vectors = await child.embedMany(TEXTS);
    expect(bytes(vectors)).toEqual(bytes(await (await sharedEmbedder()).embedMany(TEXTS)));
    expect(inlineCalls()).toBe(2);
    expect(logs.some((line) => line.includes("document embedding process stuck"))).toBe(true);
    await until(() => !alive(stuck), "the stuck child to be gone", 10_000);
  });

  test("a child that cannot load its model leaves the work to the server's thread, once and for all", async () => {
    const emptyModelDir = tempDir("sieve-no-model-");
    const { process: child, logs, inlineCalls } = harness({ modelDir: emptyModelDir });
    started.push(child);
    try {
      await child.embedMany(TEXTS);
      await until(() => logs.some((line) => line.includes("could not load the model")), "the child to report its failure");
      await until(() => child.pid === undefined, "the broken child to exit");
      expect(bytes(await child.embedMany(TEXTS))).toEqual(bytes(await (await sharedEmbedder()).embedMany(TEXTS)));
      expect(inlineCalls()).toBe(2);
      expect(child.pid).toBeUndefined(); // not started again
    } finally {
      rmSync(emptyModelDir, { recursive: true, force: true });
    }
  });

  test("an idle child exits (it holds a second model); the next batch runs inline and starts another", async () => {
    const { process: child, inlineCalls } = harness({}, 500);
    started.push(child);
    await child.embedMany(TEXTS);
    const first = child.pid!;
    await until(() => child.ready, "the child to load its model");
    await until(() => !alive(first), "the idle child to exit", 10_000);
    expect(child.ready).toBe(false);
    await child.embedMany(TEXTS);
    expect(inlineCalls()).toBe(2);
    expect(child.pid).not.toBe(first);
  });

  test("stop ends the child", async () => {
    const { process: child } = harness();
    await child.embedMany(TEXTS);
    const pid = child.pid!;
    expect(alive(pid)).toBe(true);
    await child.stop();
    expect(alive(pid)).toBe(false);
    expect(child.pid).toBeUndefined();
  });
});

describe("documents with --document-embedding", () => {
  test("process (default): a long document's chunks are embedded by the child and its vectors match the inline mode's", async () => {
    const markdown = longMarkdown(7, 40);
    const vectorsOf = async (documentEmbedding: "process" | "inline") => {
      const sieve = await startSieve({ documentEmbedding });
      try {
        const docs = new DocumentsClient(sieve.url, sieve.tenant());
        const upload = await docs.uploadFile("report.md", markdown);
        expect([201, 202]).toContain(upload.status);
        const { variant_id } = (await upload.json()) as { variant_id: string };
        await until(() => sieve.ctx.database.sqlite.query("SELECT status FROM document_variants WHERE id = ?").get(variant_id) !== null, "the variant row");
        for (let i = 0; i < 600; i++) {
          const row = sieve.ctx.database.sqlite.query("SELECT status FROM document_variants WHERE id = ?").get(variant_id) as { status: string };
          if (row.status === "completed") break;
          expect(row.status).not.toBe("failed");
          await Bun.sleep(100);
        }
        const readyLogged = sieve.logs.some((line) => line.includes('"msg":"document embedding process ready"'));
        const rows = sieve.ctx.database.sqlite
          .query("SELECT c.chunk_index AS i, v.embedding AS e FROM document_chunks c JOIN chunk_embeddings v ON v.chunk_seq = c.seq WHERE c.variant_id = ? ORDER BY c.chunk_index")
          .all(variant_id) as { i: number; e: Uint8Array }[];
        return { readyLogged, vectors: rows.map((r) => Buffer.from(r.e).toString("base64")) };
      } finally {
        await sieve.close();
      }
    };
    const offThread = await vectorsOf("process");
    const inline = await vectorsOf("inline");
    expect(offThread.readyLogged).toBe(true);
    expect(inline.readyLogged).toBe(false);
    expect(offThread.vectors.length).toBeGreaterThan(20);
    expect(offThread.vectors).toEqual(inline.vectors);
  });

  test("a SIGKILLed server leaves no embedding process behind", async () => {
    const dataDir = tempDir("sieve-orphan-");
    const serve = await spawnServe(["--data-dir", dataDir, "--log-level", "debug", "--bootstrap-key"]);
    try {
      await waitUntilReady(serve.url);
      const key = /bootstrap key created: workspace (\S+) key (\S+)/.exec(serve.output());
      expect(key).not.toBeNull();
      const docs = new DocumentsClient(serve.url, { workspaceId: key![1]!, apiKey: key![2]!, keyId: "", serviceHeaders: {}, bearer: { Authorization: `Bearer ${key![2]}` } });
      expect([201, 202]).toContain((await docs.uploadFile("big.md", longMarkdown(11, 60))).status);
      await until(() => /"msg":"document embedding process ready","pid":\d+/.test(serve.output()), "the child to be ready");
      const pid = Number(/"msg":"document embedding process ready","pid":(\d+)/.exec(serve.output())![1]);
      expect(alive(pid)).toBe(true);
      serve.child.kill("SIGKILL");
      await serve.child.exited;
      await until(() => !alive(pid), "the orphaned child to exit", 10_000);
    } finally {
      if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
