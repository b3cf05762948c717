import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic, { PermissionDeniedError as AnthropicDenied } from "@anthropic-ai/sdk";
import OpenAI, { PermissionDeniedError } from "openai";
import { startDialectSuite, type DialectSuite } from "../proxy/dialect-support";
import { evidenceFor, storedText, type Tenant, type TestSieve } from "../support/sieve";
import type { FakeUpstream } from "../support/fake-upstream";

let suite: DialectSuite;
let upstream: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;

/** Format-valid, made up for these tests. */
const AWS_KEY = "AKIAQ7ZRWX3JHNM4VTPL";
const EMAIL = "marta.kowalski@example-mail.org";

beforeAll(async () => {
  suite = await startDialectSuite("dp");
  ({ upstream, sieve, tenant } = suite);
});
afterAll(() => suite.close());

const openai = (t: Tenant = tenant) => new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: t.serviceHeaders, maxRetries: 0 });
const anthropic = (t: Tenant = tenant) => new Anthropic({ apiKey: "sk-ant-provider-test", baseURL: sieve.url, defaultHeaders: t.serviceHeaders, maxRetries: 0 });
const setPolicy = (t: Tenant, data_protection: unknown) =>
  fetch(`${sieve.url}/api/workspace`, { method: "PATCH", headers: { ...t.bearer, "content-type": "application/json" }, body: JSON.stringify({ data_protection }) });
/** The raw body of a chat request, for what the SDK does not expose (the block's reason). */
const postChat = (t: Tenant, body: unknown) =>
  fetch(`${sieve.url}/v1/chat/completions`, { method: "POST", headers: { ...t.serviceHeaders, "content-type": "application/json", authorization: "Bearer sk-provider-test" }, body: JSON.stringify(body) });
const forwardedWith = (needle: string) => upstream.received.filter((r) => r.body.includes(needle)).length;

describe("an AWS key is blocked by default on every dialect", () => {
  test("chat completions: 403 naming the type and where, never the value; nothing forwarded", async () => {
    const before = forwardedWith(AWS_KEY);
    const error = await openai()
      .chat.completions.create({ model: "m", messages: [{ role: "system", content: "be brief" }, { role: "user", content: `deploy with key ${AWS_KEY} please` }] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.error).toBe("blocked_by_firewall");
    const response = await postChat(tenant, { model: "m", messages: [{ role: "system", content: "be brief" }, { role: "user", content: `deploy with key ${AWS_KEY} please` }] });
    expect(response.status).toBe(403);
    const body = (await response.json()) as any;
    expect(body).toEqual({ error: "blocked_by_firewall", reason: "data_protection: secret (aws:AWSAccessKeyID) found in messages[1].content", request_id: expect.any(String) });
    expect(forwardedWith(AWS_KEY)).toBe(before);
    const record = await evidenceFor(sieve, tenant, body.request_id);
    expect(record.status).toBe(403);
    expect(record.data_protection).toEqual([{ side: "input", type: "secret", rule: "aws:AWSAccessKeyID", action: "block", count: 1, where: ["messages[1].content"] }]);
  });

  test("Responses API and Messages API: 403 too", async () => {
    const responses = await openai().responses.create({ model: "m", input: `my key: ${AWS_KEY}` }).catch((e) => e);
    expect(responses).toBeInstanceOf(PermissionDeniedError);
    const messages = await anthropic()
      .messages.create({ model: "claude-test", max_tokens: 16, system: `ops key ${AWS_KEY}`, messages: [{ role: "user", content: "hi" }] })
      .catch((e) => e);
    expect(messages).toBeInstanceOf(AnthropicDenied);
    expect(JSON.stringify(messages.error)).toContain("system");
    expect(JSON.stringify(messages.error)).not.toContain(AWS_KEY);
  });

  test("a provider's prefixed token with no credential word near it (Hugging Face) is blocked too", async () => {
    const token = "hf_Q7ZrWx3JhNm4VtPl2aBcD9eFgH1iJkLmNo";
    const body = { model: "m", messages: [{ role: "user" as const, content: `Why is this rejected? ${token}` }] };
    expect(await openai().chat.completions.create(body).catch((e) => e)).toBeInstanceOf(PermissionDeniedError);
    expect(((await (await postChat(tenant, body)).json()) as any).reason).toBe("data_protection: secret (huggingface:UserAccessToken) found in messages[0].content");
    expect(forwardedWith(token)).toBe(0);
  });

  test("a tool result carrying a key is blocked as well", async () => {
    const body = {
      model: "m",
      messages: [
        { role: "user" as const, content: "read the env" },
        { role: "assistant" as const, content: null, tool_calls: [{ id: "c1", type: "function" as const, function: { name: "env", arguments: "{}" } }] },
        { role: "tool" as const, tool_call_id: "c1", content: `AWS_ACCESS_KEY_ID=${AWS_KEY}` },
      ],
    };
    expect(await openai().chat.completions.create(body).catch((e) => e)).toBeInstanceOf(PermissionDeniedError);
    expect(((await (await postChat(tenant, body)).json()) as any).reason).toContain("messages[2].content");
  });
});

describe("redact and mask", () => {
  let masking: Tenant;
  beforeAll(async () => {
    masking = await sieve.tenant("masking");
    expect((await setPolicy(masking, { actions: { email: "mask", phone: "redact" } })).status).toBe(200);
  });

  test("redact: the provider receives a typed placeholder, and the answer keeps it", async () => {
    const completion = await openai(masking).chat.completions.create({ model: "m", messages: [{ role: "user", content: "call +44 20 7946 0958 today" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: call [PHONE_1] today");
    expect(forwardedWith("7946 0958")).toBe(0);
  });

  test("mask, non-streamed on all three dialects: the provider sees placeholders, the client its own address", async () => {
    const chat = await openai(masking).chat.completions.create({ model: "m", messages: [{ role: "user", content: `write to ${EMAIL} now` }] });
    expect(chat.choices[0]!.message.content).toBe(`echo: write to ${EMAIL} now`);
    const responses = await openai(masking).responses.create({ model: "m", input: `write to ${EMAIL} later` });
    expect(responses.output_text).toBe(`echo: write to ${EMAIL} later`);
    const messages = await anthropic(masking).messages.create({ model: "claude-test", max_tokens: 32, messages: [{ role: "user", content: `mail ${EMAIL}` }] });
    expect(messages.content[0]).toMatchObject({ type: "text", text: `echo: mail ${EMAIL}` });
    expect(forwardedWith(EMAIL)).toBe(0);
    expect(upstream.received.some((r) => r.body.includes("[EMAIL_1]"))).toBe(true);
  });

  test("mask, streamed with the placeholder split across chunks (chat, Responses, Messages)", async () => {
    let chat = "";
    for await (const chunk of await openai(masking).chat.completions.create({ model: "pieces:4", stream: true, messages: [{ role: "user", content: `ping ${EMAIL}` }] })) {
      chat += chunk.choices[0]?.delta.content ?? "";
    }
    expect(chat).toBe(`echo: ping ${EMAIL}`);
    const responses = openai(masking).responses.stream({ model: "pieces:3", input: `pong ${EMAIL}` });
    expect((await responses.finalResponse()).output_text).toBe(`echo: pong ${EMAIL}`);
    const stream = anthropic(masking).messages.stream({ model: "pieces:5", max_tokens: 32, messages: [{ role: "user", content: `pang ${EMAIL} end` }] });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    await stream.finalMessage();
    expect(text).toBe(`echo: pang ${EMAIL} end`);
    expect(forwardedWith(EMAIL)).toBe(0);
  });

  test("mask in tool-call arguments, whole and streamed with the placeholder split", async () => {
    const whole = await openai(masking).chat.completions.create({ model: "tool:notify", messages: [{ role: "user", content: EMAIL }] });
    expect(JSON.parse((whole.choices[0]!.message.tool_calls![0] as any).function.arguments)).toEqual({ city: EMAIL });
    let args = "";
    for await (const chunk of await openai(masking).chat.completions.create({ model: "tool:notify:10", stream: true, messages: [{ role: "user", content: EMAIL }] })) {
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
    }
    expect(JSON.parse(args)).toEqual({ city: EMAIL });
    const stream = anthropic(masking).messages.stream({ model: "tool:notify:11", max_tokens: 32, messages: [{ role: "user", content: EMAIL }] });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: "tool_use", input: { city: EMAIL } });
  });

  test("mask: national numbers in a table cell and after an Italian phone word reach the provider as placeholders, the client gets them back", async () => {
    const t = await sieve.tenant("phone-mask");
    expect((await setPolicy(t, { actions: { phone: "mask" } })).status).toBe(200);
    const content = "<table><tr><td>Reception</td><td>030 4894136</td></tr></table> Può chiamarmi allo 02 8765 4321.";
    const chat = await openai(t).chat.completions.create({ model: "m", messages: [{ role: "user", content }] });
    expect(chat.choices[0]!.message.content).toBe(`echo: ${content}`);
    const stream = anthropic(t).messages.stream({ model: "pieces:3", max_tokens: 64, messages: [{ role: "user", content }] });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    await stream.finalMessage();
    expect(text).toBe(`echo: ${content}`);
    expect(forwardedWith("4894136")).toBe(0);
    expect(forwardedWith("8765 4321")).toBe(0);
    expect(upstream.received.some((r) => r.body.includes("<td>[PHONE_1]</td>") && r.body.includes("allo [PHONE_2]"))).toBe(true);
  });

  test("the cache and the evidence hold placeholders, never the value; a cache hit is restored for the client", async () => {
    const address = "unique.cache.check@example-mail.org";
    const ask = () => openai(masking).chat.completions.create({ model: "m", messages: [{ role: "user", content: `remember ${address}` }] }).withResponse();
    const first = await ask();
    expect(first.data.choices[0]!.message.content).toBe(`echo: remember ${address}`);
    await evidenceFor(sieve, masking, first.response.headers.get("x-service-request-id")!);
    const second = await ask();
    expect(second.response.headers.get("x-service-cache")).toBe("hit");
    expect(second.data.choices[0]!.message.content).toBe(`echo: remember ${address}`);
    const record = await evidenceFor(sieve, masking, second.response.headers.get("x-service-request-id")!);
    expect(record.data_protection[0]).toMatchObject({ side: "input", type: "email", action: "mask", count: 1 });
    const stored = await storedText(sieve);
    expect(stored).not.toContain(address);
    expect(stored).not.toContain(AWS_KEY);
  });
});

describe("policy", () => {
  test("GET shows the defaults; PATCH validates types, actions and custom patterns (400 naming the field, nothing stored)", async () => {
    const t = await sieve.tenant("policy");
    const view = (await (await fetch(`${sieve.url}/api/workspace`, { headers: t.bearer })).json()) as any;
    expect(view.data_protection.actions).toMatchObject({ secret: "block", email: "log", us_ssn: "log" });
    expect(view.data_protection.phone_regions).toEqual(["US"]);
    for (const [bad, field] of [
      [{ actions: { emial: "block" } }, "data_protection.actions"],
      [{ actions: { email: "drop" } }, "data_protection.actions"],
      [{ custom: [{ name: "Bad Name", pattern: "x", action: "block" }] }, "data_protection.custom"],
      [{ custom: [{ name: "ticket", pattern: "(", action: "block" }] }, "custom[0].pattern"],
      [{ custom: [{ name: "ticket", pattern: "(a+)+$", action: "block" }] }, "custom[0].pattern"],
      [{ custom: [{ name: "ticket", pattern: "(x|xy)*z", action: "block" }] }, "custom[0].pattern"],
      [{ custom: [{ name: "ticket", pattern: "\\d*\\d*\\d*\\d*\\d*\\d*z", action: "block" }] }, "custom[0].pattern"],
      [{ custom: [{ name: "ticket", pattern: "a*", action: "block" }] }, "custom[0].pattern"],
      [{ phone_regions: ["DE", "de"] }, "data_protection.phone_regions"],
      [{ phone_regions: ["XX"] }, "data_protection.phone_regions"],
    ] as const) {
      const response = await setPolicy(t, bad);
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain(field);
    }
    const after = (await (await fetch(`${sieve.url}/api/workspace`, { headers: t.bearer })).json()) as any;
    expect(after.data_protection).toEqual(view.data_protection);
  });

  test("a custom pattern applies to its workspace only; the test endpoint shows findings without values", async () => {
    const a = await sieve.tenant("tenant-a");
    const b = await sieve.tenant("tenant-b");
    expect((await setPolicy(b, { actions: { email: "block" }, custom: [{ name: "ticket", pattern: "TCK-\\d{6}", action: "redact" }] })).status).toBe(200);
    const test = (t: Tenant) =>
      fetch(`${sieve.url}/v1/data-protection/test`, { method: "POST", headers: { ...t.serviceHeaders, "content-type": "application/json" }, body: JSON.stringify({ text: `TCK-123456 from ${EMAIL}` }) }).then((r) => r.json());
    expect(await test(b)).toEqual({
      findings: [
        { type: "ticket", start: 0, end: 10, action: "redact" },
        { type: "email", start: 16, end: 16 + EMAIL.length, action: "block" },
      ],
      text: `[TICKET_1] from ${EMAIL}`,
      blocked: true,
    });
    expect(await test(a)).toEqual({ findings: [{ type: "email", start: 16, end: 16 + EMAIL.length, action: "log" }], text: `TCK-123456 from ${EMAIL}`, blocked: false });
    const fromA = await openai(a).chat.completions.create({ model: "m", messages: [{ role: "user", content: `hello ${EMAIL}` }] });
    expect(fromA.choices[0]!.message.content).toBe(`echo: hello ${EMAIL}`);
    expect(await openai(b).chat.completions.create({ model: "m", messages: [{ role: "user", content: `hello ${EMAIL}` }] }).catch((e) => e)).toBeInstanceOf(PermissionDeniedError);
  });

  test("phone_regions: national numbers of the workspace's regions are found without a phone word, after one in any region", async () => {
    const t = await sieve.tenant("phone-regions");
    const scan = (text: string) =>
      fetch(`${sieve.url}/v1/data-protection/test`, { method: "POST", headers: { ...t.serviceHeaders, "content-type": "application/json" }, body: JSON.stringify({ text }) }).then((r) => r.json() as Promise<any>);
    const berlin = "Büro Berlin: 030 4894136, Zentrale";
    const cued = "Rufen Sie mich unter 030 4894136 zurück.";
    expect((await scan(berlin)).findings).toEqual([]);
    expect((await scan(cued)).findings).toEqual([{ type: "phone", start: 21, end: 32, action: "log" }]);
    expect((await setPolicy(t, { actions: { phone: "mask" }, phone_regions: ["DE", "FR"] })).status).toBe(200);
    const view = (await (await fetch(`${sieve.url}/api/workspace`, { headers: t.bearer })).json()) as any;
    expect(view.data_protection.phone_regions).toEqual(["DE", "FR"]);
    expect(await scan(berlin)).toEqual({ findings: [{ type: "phone", start: 13, end: 24, action: "mask" }], text: "Büro Berlin: [PHONE_1], Zentrale", blocked: false });
    // The regions replace the default: a North American number without + is no longer read.
    expect((await scan("Office: (415) 555-0132, 01 44 53 52 63, order 0861584493")).findings.map((f: any) => f.start)).toEqual([24]);
    const answer = await openai(t).chat.completions.create({ model: "m", messages: [{ role: "user", content: berlin }] });
    expect(answer.choices[0]!.message.content).toBe(`echo: ${berlin}`);
    expect(forwardedWith("030 4894136")).toBe(0);
  });

  test("an answer echoing a secret is blocked on the way back (non-streamed and streamed)", async () => {
    const t = await sieve.tenant("echo");
    const error = await openai(t).chat.completions.create({ model: `say:the key is ${AWS_KEY}`, messages: [{ role: "user", content: "tell me" }] }).catch((e) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    let streamed = "";
    const failure = await (async () => {
      for await (const chunk of await openai(t).chat.completions.create({ model: `say:the key is ${AWS_KEY}`, stream: true, messages: [{ role: "user", content: "tell me" }] })) {
        streamed += chunk.choices[0]?.delta.content ?? "";
      }
    })().catch((e) => e);
    expect(failure).toBeInstanceOf(Error);
  });

  test("/v1/embeddings for a provider's model: a key is blocked, a masked address reaches the provider as a placeholder", async () => {
    const t = await sieve.tenant("embeddings");
    expect((await setPolicy(t, { actions: { email: "mask" } })).status).toBe(200);
    const before = upstream.received.filter((r) => r.path === "/v1/embeddings").length;
    const blocked = await openai(t).embeddings.create({ model: "text-embedding-3-small", input: ["fine", `key ${AWS_KEY}`] }).catch((e) => e);
    expect(blocked).toBeInstanceOf(PermissionDeniedError);
    expect(upstream.received.filter((r) => r.path === "/v1/embeddings").length).toBe(before);
    const ok = await openai(t).embeddings.create({ model: "text-embedding-3-small", input: `vector of ${EMAIL}` });
    expect(ok.data).toHaveLength(1);
    const seen = upstream.received.filter((r) => r.path === "/v1/embeddings").at(-1)!;
    expect(JSON.parse(seen.body).input).toBe("vector of [EMAIL_1]");
  });

  test("/metrics counts findings by side, type and action", async () => {
    const text = await (await fetch(`${sieve.url}/metrics`)).text();
    expect(text).toMatch(/sieve_data_protection_findings_total\{side="input",type="secret",action="block"\} [1-9]/);
    expect(text).toMatch(/sieve_data_protection_findings_total\{side="input",type="custom",action="redact"\} [1-9]|sieve_data_protection_findings_total\{side="input",type="email",action="mask"\} [1-9]/);
  });
});
