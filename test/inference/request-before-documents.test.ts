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
  // One inference thread: a batch then takes the longest, so the ordering shows plainly.
  sieve = await startSieve({ upstreamUrl: upstream.url, inferenceThreads: 1 });
  tenant = await sieve.tenant();
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

test("a proxied request sent while a document's chunk batch is queued is answered before that batch completes", async () => {
  const client = new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
  // A first request pays the stages' one-time set-up (pattern matrices, cache tables), which is not inference.
  await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Warm up the firewall and the cache, please." }] });
  const docs = new DocumentsClient(sieve.url, tenant);
  // The upload answers only after its 2 s synchronous wait, by when batches are long under way: watch the log meanwhile.
  const uploading = docs.uploadFile("long-handbook.md", longMarkdown(13, 200));
  // The job logs a progress line after each batch and submits the next batch right after it (same
  // tick): once the first line is there, the second batch (~16 chunks of 256 tokens) is queued.
  const batchesDone = () => sieve.logs.filter((line) => line.includes('"msg":"document variant progress"')).length;
  for (let i = 0; i < 60_000 && batchesDone() === 0; i++) await Bun.sleep(1);
  expect(batchesDone()).toBe(1);

  // Firewall and cache on (defaults): this fresh prompt needs the model at request priority.
  const completion = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Summarise the onboarding checklist for a new hire in three bullet points." }] });
  expect(completion.choices[0]!.message.content).toBe("echo: Summarise the onboarding checklist for a new hire in three bullet points.");
  // Served before the queued batch's chunks: that batch has not completed yet.
  expect(batchesDone()).toBe(1);

  const upload = await uploading;
  // 202 while the job still runs when the upload's 2 s wait ends; a fast host may finish it within the wait (201).
  expect([201, 202]).toContain(upload.status);
  const { variant_id } = (await upload.json()) as { variant_id: string };
  const done = await docs.waitForVariant(variant_id);
  expect(done.status).toBe("completed");
  expect(done.chunks_count).toBeGreaterThan(50);
});
