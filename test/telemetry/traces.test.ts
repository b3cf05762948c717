import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";

type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: { key: string; value: Record<string, unknown> }[] };

/** A local OTLP/HTTP receiver: what arrives at /v1/traces, decoded (the exporter sends JSON). */
function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      paths.push(new URL(request.url).pathname);
      const body = (await request.json()) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      return Response.json({});
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, spans, paths, stop: () => server.stop(true) };
}

const attributes = (span: OtlpSpan) => Object.fromEntries(span.attributes.map(({ key, value }) => [key, Object.values(value)[0]]));

let upstream: FakeUpstream;
let receiver: ReturnType<typeof otlpReceiver>;
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  receiver = otlpReceiver();
  sieve = await startSieve({ upstreamUrl: upstream.url, otlpEndpoint: receiver.url });
  tenant = await sieve.tenant();
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
  receiver.stop();
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

describe("OpenTelemetry traces", () => {
  test("one span per request continuing the client's traceparent, children for firewall, cache, provider call and output check, GenAI attributes; the provider gets the trace", async () => {
    const client = new OpenAI({ apiKey: "sk-test", baseURL: `${sieve.url}/v1`, defaultHeaders: { ...tenant.serviceHeaders, traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` }, maxRetries: 0 });
    await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "trace this request please" }] });
    await sieve.ctx.afterResponse.idle(); // the request span ends with its usage, metered after the answer left
    await sieve.ctx.tracing!.flush();
    expect(receiver.paths.every((path) => path === "/v1/traces")).toBe(true);
    const ours = receiver.spans.filter((span) => span.traceId === TRACE_ID);
    const root = ours.find((span) => span.parentSpanId === CLIENT_SPAN)!;
    expect(root).toMatchObject({ name: "chat gpt-4o", kind: 2 }); // SERVER
    expect(attributes(root)).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.system": "openai",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.usage.input_tokens": 5,
      "gen_ai.response.model": "gpt-4o",
      "gen_ai.usage.output_tokens": 5,
      "sieve.cache.status": "miss",
      "sieve.firewall.verdict": "allow",
      "http.response.status_code": 200,
    });
    expect(String(attributes(root)["gen_ai.input.messages"])).toContain("trace this request please");
    const children = ours.filter((span) => span.parentSpanId === root.spanId);
    expect(children.map((span) => span.name).sort()).toEqual(["chat gpt-4o", "sieve.cache", "sieve.firewall", "sieve.output_check"]);
    const call = children.find((span) => span.name === "chat gpt-4o")!;
    expect(call.kind).toBe(3); // CLIENT
    expect(attributes(children.find((span) => span.name === "sieve.cache")!)["sieve.cache.status"]).toBe("miss");
    // The provider was asked within the same trace, as a child of the provider-call span.
    expect(upstream.received.at(-1)!.headers.traceparent).toBe(`00-${TRACE_ID}-${call.spanId}-01`);
  });

  test("without body logging no prompt or completion text is in a span; a request without traceparent starts a trace", async () => {
    await fetch(`${sieve.url}/api/workspace`, { method: "PATCH", headers: { "content-type": "application/json", ...tenant.bearer }, body: JSON.stringify({ log_bodies: false }) });
    const before = receiver.spans.length;
    const client = new OpenAI({ apiKey: "sk-test", baseURL: `${sieve.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
    await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "name three rivers of europe" }] });
    await sieve.ctx.afterResponse.idle(); // the request span ends with its usage, metered after the answer left
    await sieve.ctx.tracing!.flush();
    const fresh = receiver.spans.slice(before);
    const root = fresh.find((span) => span.kind === 2)!;
    expect(root.parentSpanId ?? "").toBe("");
    expect(JSON.stringify(fresh)).not.toContain("three rivers");
    expect(JSON.stringify(fresh)).not.toContain("echo:");
  });

  test("off by default: no tracer, and a client's traceparent is not passed on", async () => {
    const plain = await startSieve({ upstreamUrl: upstream.url, firewall: false, cache: false });
    try {
      expect(plain.ctx.tracing).toBeUndefined();
      const t = await plain.tenant();
      const client = new OpenAI({ apiKey: "sk-test", baseURL: `${plain.url}/v1`, defaultHeaders: { ...t.serviceHeaders, traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` }, maxRetries: 0 });
      await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "untraced" }] });
      expect(upstream.received.at(-1)!.headers.traceparent).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
