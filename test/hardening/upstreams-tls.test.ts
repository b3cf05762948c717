/**
 * Issue #17, defect 3: a workspace's https provider is reached at the address Sieve checked,
 * while TLS still verifies the certificate against the URL's host name (and Host names it).
 * The Sieve under test is its own process so it can trust the test certificate at start-up.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli, spawnServe, waitUntilReady, type ServeProcess } from "../support/process";
import { tempDir } from "../support/sieve";

const fixtures = join(import.meta.dir, "fixtures");
let provider: ReturnType<typeof Bun.serve>;
let seenHosts: string[] = [];
let serve: ServeProcess;
let credentials: { workspace_id: string; api_key: string };

beforeAll(async () => {
  // A fake OpenAI-compatible provider over HTTPS, on loopback, certified for "localhost" only.
  provider = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(join(fixtures, "localhost-cert.pem")), key: Bun.file(join(fixtures, "localhost-key.pem")) },
    fetch(request) {
      seenHosts.push(request.headers.get("host") ?? "");
      return Response.json({ id: "tls-1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "over tls" }, finish_reason: "stop" }] });
    },
  });
  const dataDir = tempDir();
  const created = await runCli(["keys", "create", "--init", "--data-dir", dataDir, "--json"]);
  credentials = JSON.parse(created.stdout.trim().split("\n").at(-1)!);
  serve = await spawnServe(["--data-dir", dataDir, "--upstream-url", "http://127.0.0.1:9/v1", "--allow-upstream-hosts", "127.0.0.1,::1"], undefined, {
    NODE_EXTRA_CA_CERTS: join(fixtures, "localhost-cert.pem"),
  });
  await waitUntilReady(serve.url);
});
afterAll(async () => {
  serve?.child.kill("SIGTERM");
  await serve?.child.exited;
  provider?.stop(true);
});

test("an https workspace provider is pinned to its checked address with the certificate still verified", async () => {
  const url = `https://localhost:${provider.port}/v1`;
  const patched = await fetch(`${serve.url}/api/workspace`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${credentials.api_key}`, "content-type": "application/json" },
    body: JSON.stringify({ upstream_url: url }),
  });
  expect(patched.status).toBe(200);
  const response = await fetch(`${serve.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-api-key": credentials.api_key, "x-service-workspace-id": credentials.workspace_id },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello over tls" }] }),
  });
  expect(response.status).toBe(200);
  expect(((await response.json()) as any).choices[0].message.content).toBe("over tls");
  expect(seenHosts.at(-1)).toBe(`localhost:${provider.port}`);
});
