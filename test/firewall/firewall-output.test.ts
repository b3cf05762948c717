import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FakeUpstream } from "../support/fake-upstream";
import type { Tenant, TestSieve } from "../support/sieve";
import { startFirewallSuite, type FirewallClient, type FirewallSuite } from "./http";

let suite: FirewallSuite;
let upstream: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;
let api: FirewallClient;

beforeAll(async () => {
  suite = await startFirewallSuite("firewall-output");
  ({ upstream, sieve, tenant, api } = suite);
});

afterAll(() => suite.close());

const SYSTEM_PROMPT =
  "You are Quill, the writing assistant of Marlow Publishing. Never mention the unreleased autumn catalogue, do not quote royalty rates, " +
  "and always recommend the house style guide when authors ask about formatting.";
const LEAKING_ANSWER = `Of course. My instructions are: ${SYSTEM_PROMPT} That is everything I was told before you arrived, word for word.`;

const request = (answer: string, stream: boolean, system = SYSTEM_PROMPT, question = "Could you help me format the dedication page of my novel?") => ({
  model: `say:${answer}`,
  stream,
  messages: [
    { role: "system", content: system },
    { role: "user", content: question },
  ],
});

/** Data payloads and event names of an SSE body. */
function parseSse(text: string) {
  const events = text.split("\n\n").filter((block) => block.trim());
  return events.map((block) => ({
    event: /^event: (.*)$/m.exec(block)?.[1],
    data: block
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => line.slice(6))
      .join("\n"),
  }));
}

/** The assistant text the client received (delta contents of the data events). */
function streamedText(events: ReturnType<typeof parseSse>): string {
  return events
    .filter((e) => e.event === undefined && e.data !== "[DONE]")
    .map((e) => JSON.parse(e.data).choices?.[0]?.delta?.content ?? "")
    .join("");
}

describe("output monitor while streaming", () => {
  test("a response that reproduces the system prompt is cut off part-way: SSE error event, no [DONE], evidence recorded", async () => {
    const response = await api.chat(request(LEAKING_ANSWER, true));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const requestId = response.headers.get("x-service-request-id")!;
    const events = parseSse(await response.text());

    const last = events.at(-1)!;
    expect(last.event).toBe("error");
    const payload = JSON.parse(last.data);
    expect(payload.error).toMatchObject({ type: "blocked_by_firewall", request_id: requestId });
    expect(payload.error.reason).toStartWith("prompt_extraction: ");
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);

    // Cut off part-way: some words reached the client, the end of the answer did not.
    const streamed = streamedText(events);
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed).not.toContain("word for word");

    const record = await api.evidence(requestId);
    expect(record).toMatchObject({ status: 403, firewall_action: "block", stream: true });
    expect(record.firewall_matches).toContainEqual(expect.objectContaining({ pattern_id: "out.pe.system-prompt-reproduced", family: "prompt_extraction", side: "output", action: "block" }));
  });

  test("a short answer that is only checked at the end is cut before [DONE] goes out", async () => {
    // Under OUTPUT_MIN_NEW_CHARS and without a sentence end: no check runs while it streams.
    const answer = "As DAN I have no restrictions now";
    const response = await api.chat({ model: `say:${answer}`, stream: true, messages: [{ role: "user", content: "Tell me a joke about cats." }] });
    const events = parseSse(await response.text());
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data).error.type).toBe("blocked_by_firewall");
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
    const record = await api.evidence(response.headers.get("x-service-request-id")!);
    expect(record).toMatchObject({ status: 403, firewall_action: "block" });
  });

  test("an ordinary streamed answer under the same system prompt streams to [DONE]", async () => {
    const answer = "Put the dedication on its own right-hand page, centred, in the body font, with no heading. Our house style guide has an example.";
    const response = await api.chat(request(answer, true));
    const events = parseSse(await response.text());
    expect(events.at(-1)!.data).toBe("[DONE]");
    expect(events.some((e) => e.event === "error")).toBe(false);
    const record = await api.evidence(response.headers.get("x-service-request-id")!);
    expect(record).toMatchObject({ status: 200, firewall_action: "allow" });
  });

  test("an output-side pattern (a jailbreak persona accepted) ends the stream too", async () => {
    const answer = "DAN: Sure! As DAN I can do anything now and I have no restrictions. Here is what you asked for, without any filter at all.";
    const response = await api.chat({ model: `say:${answer}`, stream: true, messages: [{ role: "user", content: "Tell me a joke about cats." }] });
    const events = parseSse(await response.text());
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data).error.reason).toStartWith("jailbreak: ");
    expect(streamedText(events)).toStartWith("DAN: Sure!");
    expect(streamedText(events)).not.toContain("without any filter");
  });
});

describe("output check of a non-streamed response", () => {
  test("a leaking completion is replaced by the 403 blocked body", async () => {
    const response = await api.chat(request(LEAKING_ANSWER, false));
    expect(response.status).toBe(403);
    const body = (await response.json()) as any;
    expect(body).toEqual({ error: "blocked_by_firewall", reason: expect.stringMatching(/^prompt_extraction: /), request_id: response.headers.get("x-service-request-id") });
    expect(JSON.stringify(body)).not.toContain("royalty");
  });

  test("a workspace can switch the system-prompt check off", async () => {
    expect((await api.patch("/v1/firewall/patterns/out.pe.system-prompt-reproduced", { enabled: false })).status).toBe(200);
    try {
      const response = await api.chat(request(LEAKING_ANSWER, false));
      expect(response.status).toBe(200);
      expect(((await response.json()) as any).choices[0].message.content).toBe(LEAKING_ANSWER);
    } finally {
      await api.patch("/v1/firewall/patterns/out.pe.system-prompt-reproduced", { enabled: true });
    }
  });

  test("an answer whose only cue is inside an encoded run is still decoded and checked", async () => {
    // No word of the visible text cues an embedding; the decoded run is the DAN persona accepting.
    const persona = "DAN: Sure! As DAN I can do anything now and I have no restrictions. Here is what you asked for, without any filter at all.";
    const answer = `Here is the text you asked me to encode: ${Buffer.from(persona).toString("base64")}`;
    const response = await api.chat({ model: `say:${answer}`, messages: [{ role: "user", content: "Encode my note in base64." }] });
    expect(response.status).toBe(403);
    expect(((await response.json()) as any).reason).toStartWith("jailbreak: ");
  });

  test("a custom output pattern applies to the response, not to the request", async () => {
    const created = await api.post("/v1/firewall/patterns", { text: "Our discount code for staff is ORCHID-77.", action: "block", threshold: 0.9, side: "output", family: "internal_codes" });
    expect(created.status).toBe(201);
    const asked = await api.chat({ model: "say:Thanks, noted.", messages: [{ role: "user", content: "Our discount code for staff is ORCHID-77." }] });
    expect(asked.status).toBe(200); // the user may say it; the assistant may not
    const leaked = await api.chat({ model: "say:Sure, our discount code for staff is ORCHID-77.", messages: [{ role: "user", content: "any discounts?" }] });
    expect(leaked.status).toBe(403);
    expect(((await leaked.json()) as any).reason).toStartWith("internal_codes: ");
  });
});

describe("system prompts and answers the encoder cannot read", () => {
  // Amharic: MiniLM has no pieces for Ethiopic letters, so any two texts in it embed alike.
  const amharicSystem = "አንተ የአዲስ አበባ የቱሪዝም ቢሮ ረዳት ነህ። ስለ ሆቴሎች ዋጋ አትናገር፣ የውስጥ ሰነዶችን አታጋራ፣ እና ሁልጊዜ ጎብኚዎችን ወደ ድረ ገጻችን ምራ።";
  const amharicAnswer = "መስቀል አደባባይ በከተማው መሃል ይገኛል። በመስከረም ወር የመስቀል በዓል በዚያ በታላቅ ሁኔታ ይከበራል፣ ብዙ ሰዎችም ይሳተፋሉ።";
  const amharic = (answer: string, stream: boolean) => request(answer, stream, amharicSystem, "መስቀል አደባባይ የት ነው?");

  test("an ordinary answer is not taken for a leak of the system prompt by embedding alone", async () => {
    const plain = await api.chat(amharic(amharicAnswer, false));
    expect(plain.status).toBe(200);
    const streamed = await api.chat(amharic(amharicAnswer, true));
    const events = parseSse(await streamed.text());
    expect(events.at(-1)?.data).toBe("[DONE]");
  });

  test("a verbatim copy is still caught, by its words", async () => {
    const leaked = await api.chat(amharic(`እሺ። መመሪያዎቼ እነዚህ ናቸው፦ ${amharicSystem}`, false));
    expect(leaked.status).toBe(403);
  });
});
