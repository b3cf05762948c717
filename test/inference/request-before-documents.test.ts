import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import OpenAI from "openai";
import { DocumentsClient } from "../documents/api-client";
import { longMarkdown } from "../documents/documents-gen";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";

// The real model on a long document: many seconds on a busy 2-core box.
setDefaultTimeout(300_000);

let upstream: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  sieve = await startSieve({ upstreamUrl: upstream.url });
  tenant = sieve.tenant();
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

test("a proxied request sent while a document's chunk batch is queued is answered before that batch completes", async () => {
  const docs = new DocumentsClient(sieve.url, tenant);
  const upload = await docs.uploadFile("long-handbook.md", longMarkdown(13, 200));
  expect(upload.status).toBe(202);
  const { variant_id } = (await upload.json()) as { variant_id: string };
  // The job logs a progress line after each batch and submits the next batch right after it (same
  // tick): once the first line is there, the second batch (~16 chunks of 256 tokens) is queued.
  const batchesDone = () => sieve.logs.filter((line) => line.includes('"msg":"document variant progress"') && line.includes(variant_id)).length;
  for (let i = 0; i < 6000 && batchesDone() === 0; i++) await Bun.sleep(10);
  expect(batchesDone()).toBe(1);

  // Firewall and cache on (defaults): this fresh prompt needs the model at request priority.
  const client = new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Summarise the onboarding checklist for a new hire in three bullet points." }] });
  expect(completion.choices[0]!.message.content).toBe("echo: Summarise the onboarding checklist for a new hire in three bullet points.");
  // Served before the queued batch's chunks: that batch has not completed yet.
  expect(batchesDone()).toBe(1);

  const done = await docs.waitForVariant(variant_id);
  expect(done.status).toBe("completed");
  expect(done.chunks_count).toBeGreaterThan(50);
});
