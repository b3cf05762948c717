/**
 * The cache's hit and miss counters are written in batches (src/cache/counters.ts): what a
 * workspace sees in /v1/cache/stats is exact the moment it asks, and a clean shutdown writes
 * whatever was still pending, so a restarted server reports the same figures.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startSieve, tempDir, type Tenant } from "../support/sieve";

let upstream: FakeUpstream;
const dataDir = tempDir();

beforeAll(() => {
  upstream = startFakeUpstream();
});

afterAll(async () => {
  await upstream.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const ask = (url: string, tenant: Tenant, content: string) =>
  new OpenAI({ apiKey: "sk-test", baseURL: `${url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 }).chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content }] }).withResponse();

const stats = async (url: string, tenant: Tenant) => (await (await fetch(`${url}/v1/cache/stats`, { headers: tenant.serviceHeaders })).json()) as Record<string, number>;

test("counts are exact when read, and survive a restart that nobody read them before", async () => {
  const first = await startSieve({ upstreamUrl: upstream.url, dataDir });
  const tenant = await first.tenant();
  for (const question of ["Where is the nearest pharmacy?", "When does the museum close?", "How far is the airport?"]) await ask(first.url, tenant, question);
  // The answers are stored off the response's path: wait until the repeat is a hit.
  let cache = "miss";
  for (let i = 0; i < 50 && cache !== "hit"; i++) cache = (await ask(first.url, tenant, "When does the museum close?")).response.headers.get("x-service-cache")!;
  expect(cache).toBe("hit");
  const before = await stats(first.url, tenant);
  expect(before.exact_hits).toBe(1);
  expect(before.misses).toBeGreaterThanOrEqual(3);

  // Two more requests, then a shutdown before any read or timer could write them.
  await ask(first.url, tenant, "When does the museum close?");
  await ask(first.url, tenant, "Is there a night bus to the harbour?");
  await first.stop();

  const second = await startSieve({ upstreamUrl: upstream.url, dataDir });
  try {
    const after = await stats(second.url, tenant);
    expect(after.exact_hits).toBe(2);
    expect(after.misses).toBe(before.misses + 1);
    const entries = (await (await fetch(`${second.url}/v1/cache/entries`, { headers: tenant.serviceHeaders })).json()) as { entries: { prompt: string; hits: number }[] };
    expect(entries.entries.find((e) => e.prompt === "When does the museum close?")?.hits).toBe(2);
  } finally {
    await second.stop();
  }
});
