import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { REPO, waitUntilReady } from "../support/process";
import { tempDir } from "../support/sieve";
import { DocumentsClient } from "../documents/api-client";
import { longMarkdown } from "../documents/documents-gen";
import { sampleDocx, samplePdf } from "../fixtures-gen/sample-documents";
import { sampleMsg, samplePptx, sampleXlsx } from "../fixtures-gen/sample-formats";
import { scannedPage, scannedPdf } from "../fixtures-gen/scanned-pages";
import { isLoopbackOrUnconnected, tcpPeersOf } from "../support/sockets";
import { parseExposition } from "../metrics/exposition";
import { startFakeUpstream } from "../support/fake-upstream";

/**
 * The single executable, as a user gets it: built with `bun build.ts`, copied alone into an
 * empty directory, started with an empty environment (no node_modules, no model folder, no network).
 */
let workDir: string;
let binary: string;

beforeAll(async () => {
  const buildDir = tempDir("sieve-build-");
  const built = Bun.spawnSync([process.execPath, "build.ts", "--outfile", join(buildDir, "sieve")], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`build failed: ${built.stderr.toString()}`);
  workDir = tempDir("sieve-empty-");
  binary = join(workDir, "sieve");
  copyFileSync(join(buildDir, "sieve"), binary);
  Bun.spawnSync(["chmod", "+x", binary]);
  rmSync(buildDir, { recursive: true, force: true });
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Process ids whose parent is pid (from /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/stat`, "utf8").replace(/^.*\) /, "").split(" ")[1] === String(pid);
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
}

/** `dist/sieve serve` in the work folder with nothing but PATH and HOME; `listening` resolves with its URL (undefined if it never listens). */
function serveBinary(args: string[]) {
  const child = Bun.spawn([binary, "serve", "--port", "0", ...args], { cwd: workDir, env: { PATH: "/usr/bin:/bin", HOME: workDir }, stdout: "pipe", stderr: "pipe" });
  let output = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of child.stdout) output += decoder.decode(chunk);
  })();
  const logged = () => output;
  const listening = (async () => {
    for (let i = 0; i < 200; i++) {
      const url = /"msg":"listening","url":"([^"]+)"/.exec(output)?.[1];
      if (url) return url;
      await Bun.sleep(50);
    }
    return undefined;
  })();
  return { child, listening, logged };
}

const run = (args: string[]) => {
  const result = Bun.spawnSync([binary, ...args], { cwd: workDir, env: { PATH: "/usr/bin:/bin", HOME: workDir }, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
};

describe("dist/sieve from an empty directory", () => {
  test("--version and --help work", () => {
    expect(run(["--version"]).stdout).toMatch(/^sieve \d/);
    expect(run(["--help"]).stdout).toContain("--upstream-url");
  });

  test("--embed-precision fp32 without --model-dir explains that only int8 is built in", () => {
    const result = run(["serve", "--port", "0", "--data-dir", "./data-fp32", "--embed-precision", "fp32"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("fp32 model is not built into this executable");
    expect(result.stderr).toContain("--model-dir");
    rmSync(join(workDir, "data-fp32"), { recursive: true, force: true });
  });

  test("serves on native ONNX Runtime: readyz, a real embedding, the docs page and its script, a document embedded by the pool, /metrics, one process, and no outside connection", async () => {
    const created = run(["keys", "create", "--init", "--data-dir", "./data", "--json"]);
    expect(created.code).toBe(0);
    const { workspace_id, api_key } = JSON.parse(created.stdout);
    const { child, listening, logged } = serveBinary(["--data-dir", "./data"]);
    try {
      const url = await listening;
      expect(url).toBeTruthy();
      await waitUntilReady(url!);
      // The native runtime, extracted from the binary, runs the model in the pool's worker threads.
      const ready = (await (await fetch(`${url}/readyz`)).json()) as { inference: { backend: string; threads: number } };
      expect(ready.inference.backend).toBe("native");
      expect(ready.inference.threads).toBeGreaterThanOrEqual(1);
      expect(logged()).toMatch(/"msg":"embedder ready".*"backend":"native"/);
      const response = await fetch(`${url}/v1/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-api-key": api_key, "x-service-workspace-id": workspace_id },
        body: JSON.stringify({ input: ["The cat sits on the mat.", "A cat is sitting on a mat."] }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as any;
      const [a, b] = body.data.map((d: any) => d.embedding as number[]);
      expect(a.length).toBe(384);
      const dot = a.reduce((sum: number, x: number, i: number) => sum + x * b[i], 0);
      expect(dot).toBeGreaterThan(0.75);
      const page = await (await fetch(`${url}/openapi`)).text();
      expect(page).toContain("/openapi/assets/api-reference.js");
      expect(page).not.toMatch(/cdn\.jsdelivr|unpkg|fonts\.scalar/);
      expect((await fetch(`${url}/openapi/assets/api-reference.js`)).status).toBe(200);
      // A long document: its chunks are embedded by the same process's inference threads (no second process).
      const docs = new DocumentsClient(url!, { workspaceId: workspace_id, apiKey: api_key, keyId: "", serviceHeaders: {}, bearer: { Authorization: `Bearer ${api_key}` } });
      // A DOCX is read by the document parser's worker thread, compiled into the binary beside the inference worker.
      const sample = await sampleDocx();
      const docx = await docs.uploadCompleted(sample.filename, sample.bytes);
      expect((await docs.allChunks(docx.variant_id)).map((chunk: any) => chunk.text).join(" ")).toContain("Deliveries leave the warehouses");
      // So is a PDF (pdf.js inside the compiled worker).
      const pdfSample = await samplePdf();
      const pdf = await docs.uploadCompleted(pdfSample.filename, pdfSample.bytes);
      expect((await docs.allChunks(pdf.variant_id)).map((chunk: any) => chunk.text).join(" ")).toContain("sampling campaign was planned");
      // And the formats of issue 53, whose parsers (fast-xml-parser, msgreader, postal-mime) are bundled into that worker.
      for (const [file, expected] of [[sampleMsg(), "overran its budget"], [samplePptx(), "Ship semantic search"], [sampleXlsx(5), "Product line 4"]] as const) {
        const upload = await docs.uploadCompleted(file.filename, file.bytes);
        expect((await docs.allChunks(upload.variant_id)).map((chunk: any) => chunk.text).join(" ")).toContain(expected);
      }
      const upload = await docs.uploadFile("handbook.md", longMarkdown(5, 40));
      expect([201, 202]).toContain(upload.status);
      const variant = await docs.waitForVariant(((await upload.json()) as { variant_id: string }).variant_id);
      expect(variant.chunks_count).toBeGreaterThan(20);
      // /metrics (prom-client) works from the binary; the document's chunks ran on the bulk lane.
      const metrics = parseExposition(await (await fetch(`${url}/metrics`)).text());
      expect(metrics.total("sieve_inference_seconds_count", { priority: "bulk" })).toBeGreaterThan(20);
      expect(metrics.value("sieve_http_requests_total", { method: "POST", route: "/v1/embeddings", status: "200" })).toBe(1);
      expect(childrenOf(child.pid)).toEqual([]);
      expect(tcpPeersOf(child.pid).filter((peer) => !isLoopbackOrUnconnected(peer))).toEqual([]);
      // Nothing but the data dir was written next to the binary.
      expect(readdirSync(workDir).sort()).toEqual(["data", "sieve"]);
    } finally {
      child.kill("SIGTERM");
      await child.exited;
    }
  });

  test("OCR from the embedded engine and English data: a scanned 10-page PDF and a PNG become searchable chunks with page numbers, offline", async () => {
    const created = run(["keys", "create", "--init", "--data-dir", "./data-ocr", "--json"]);
    const { workspace_id, api_key } = JSON.parse(created.stdout);
    // Tesseract takes 1–7 s a page on a busy 2-core machine: the default bounds (30 s plus 20 s per OCR'd page) hold ten of them.
    const { child, listening } = serveBinary(["--data-dir", "./data-ocr"]);
    try {
      const url = await listening;
      expect(url).toBeTruthy();
      await waitUntilReady(url!);
      const docs = new DocumentsClient(url!, { workspaceId: workspace_id, apiKey: api_key, keyId: "", serviceHeaders: {}, bearer: { Authorization: `Bearer ${api_key}` } });
      const pages = Array.from({ length: 10 }, (_, i) => ({ page: ((i % 3) + 1) as 1 | 2 | 3, as: i % 2 ? ("png" as const) : ("jpg" as const) }));
      const scan = await docs.uploadCompleted("scan.pdf", await scannedPdf(pages));
      expect(scan).toMatchObject({ format: "pdf", page_count: 10 });
      const chunks = await docs.allChunks(scan.variant_id, 100, true);
      expect([...new Set(chunks.map((chunk: any) => chunk.page_number))].sort((a: number, b: number) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      for (const chunk of chunks) expect(chunk.metadata).toMatchObject({ ocr: true, ocr_confidence: expect.any(Number) });
      expect(chunks.filter((chunk: any) => chunk.text.includes("sampling campaign was planned")).map((chunk: any) => chunk.page_number)).toEqual([1, 4, 7, 10]);
      const image = scannedPage(2, "png");
      const png = await docs.uploadCompleted(image.filename, image.bytes);
      expect(png).toMatchObject({ format: "image", mime_type: "image/png", page_count: 1 });
      expect((await docs.allChunks(png.variant_id)).map((chunk: any) => chunk.text).join("\n")).toContain("| B2 | 14.1 | 11.2 |");
      expect(tcpPeersOf(child.pid).filter((peer) => !isLoopbackOrUnconnected(peer))).toEqual([]);
    } finally {
      child.kill("SIGTERM");
      await child.exited;
      rmSync(join(workDir, "data-ocr"), { recursive: true, force: true });
    }
  });

  test("prices from the bundled catalogue and usage estimates with the bundled tokenizer, offline", async () => {
    const upstream = startFakeUpstream();
    const created = run(["keys", "create", "--init", "--data-dir", "./data-usage", "--json"]);
    const { workspace_id, api_key } = JSON.parse(created.stdout);
    const { child, listening } = serveBinary(["--data-dir", "./data-usage", "--upstream-url", upstream.url, "--allow-upstream-hosts", "127.0.0.1", "--firewall", "false", "--cache", "false"]);
    try {
      const url = await listening;
      const headers = { "content-type": "application/json", "x-service-api-key": api_key, "x-service-workspace-id": workspace_id, authorization: "Bearer sk-test" };
      const ask = async (model: string) => {
        const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers, body: JSON.stringify({ model, messages: [{ role: "user", content: "how many tokens is this question?" }] }) });
        expect(response.status).toBe(200);
        const requestId = response.headers.get("x-service-request-id")!;
        for (let i = 0; i < 100; i++) {
          const record = await fetch(`${url}/v1/evidence/${requestId}`, { headers });
          if (record.ok) return (await record.json()) as any;
          await Bun.sleep(50);
        }
        throw new Error("no evidence");
      };
      // gpt-4o at the catalogue's $2.50 in and $10 out per million: 5 input tokens, 7 output words.
      expect((await ask("gpt-4o")).cost_usd).toBeCloseTo((5 * 2.5 + 7 * 10) / 1e6, 12);
      expect((await ask("no-usage")).usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 9, estimated: true });
      expect(tcpPeersOf(child.pid).filter((peer) => !isLoopbackOrUnconnected(peer))).toEqual([]);
    } finally {
      child.kill("SIGTERM");
      await child.exited;
      await upstream.stop();
      rmSync(join(workDir, "data-usage"), { recursive: true, force: true });
    }
  });
});
