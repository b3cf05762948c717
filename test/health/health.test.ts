import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assetPaths } from "../../src/runtime/assets";
import { runCli } from "../support/process";
import { startSieve, tempDir, type TestSieve } from "../support/sieve";

let sieve: TestSieve;
beforeAll(async () => {
  sieve = await startSieve();
});
afterAll(() => sieve.close());

describe("health, readiness and API docs", () => {
  test("/healthz and /readyz answer 200 once ready", async () => {
    expect(((await (await fetch(`${sieve.url}/healthz`)).json()) as any).status).toBe("ok");
    const ready = await fetch(`${sieve.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as any).checks).toEqual({ database: true, embedder: true, firewall_encoder: true });
  });

  test("the OpenAPI document lists the routes and the docs page loads its script locally", async () => {
    const spec = (await (await fetch(`${sieve.url}/openapi/json`)).json()) as any;
    for (const path of ["/v1/chat/completions", "/v1/embeddings", "/v1/evidence/", "/api/keys/", "/api/auth/signup"]) {
      expect(Object.keys(spec.paths)).toContain(path);
    }
    const page = await (await fetch(`${sieve.url}/openapi`)).text();
    expect(page).toContain('src="/openapi/assets/api-reference.js"');
    expect(page).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)/);
  });

  test("unknown routes → 404 JSON", async () => {
    const response = await fetch(`${sieve.url}/nope`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).code).toBe("not_found");
  });
});

describe("model files", () => {
  test("a missing model file stops start-up with a message naming the file", async () => {
    const modelDir = join(tempDir(), "model");
    mkdirSync(modelDir);
    writeFileSync(join(modelDir, "config.json"), "{}");
    const result = await runCli(["serve", "--port", "0", "--data-dir", tempDir(), "--model-dir", modelDir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(join(modelDir, "tokenizer.json"));
  });

  test("a corrupt model file stops the service with a message naming the file", async () => {
    const modelDir = join(tempDir(), "model");
    // Copies, never links: the corrupted file must not be the real model (a checkout may link its model folder).
    cpSync(assetPaths().modelDir, modelDir, { recursive: true, dereference: true });
    writeFileSync(join(modelDir, "onnx", "model_quantized.onnx"), "this is not an onnx file");
    const result = await runCli(["serve", "--port", "0", "--data-dir", tempDir(), "--model-dir", modelDir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("model_quantized.onnx");
  });
});
