/**
 * A local OpenAI-compatible provider for tests: the only fake in the suite. The request's
 * `model` picks its behaviour, so concurrent tests do not interfere:
 *   any model          → a completion echoing the last user message ("echo: …")
 *   "stall"            → never answers (until the caller aborts)
 *   "error-<status>"   → that status with an OpenAI-style error body
 *   with stream: true  → SSE chunks, one word each, then [DONE]
 *   "drop"             → (stream) two chunks, then the connection breaks
 *   "no-done"          → (stream) ends cleanly without [DONE]
 *   "gated"            → (stream) first chunk, then waits until `openGate()` is called
 *   "slow"             → (stream) 30 ms between chunks
 *   "say:<text>"       → answers <text> instead of the echo
 *   "large:<bytes>"    → answers that many bytes of ordinary sentences (non-streamed)
 */
export type ReceivedRequest = { body: string; headers: Record<string, string>; path: string };

export type FakeUpstream = {
  url: string;
  received: ReceivedRequest[];
  /** Releases the "gated" streams waiting now. */
  openGate: () => void;
  /** Number of provider streams aborted by their client so far. */
  aborted: () => number;
  stop: () => Promise<void>;
};

const encoder = new TextEncoder();

/** Ordinary varied prose of about `bytes` bytes. */
function largeAnswer(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const sentence = `Paragraph ${i} reviews the quarterly figures for region ${i % 17} and notes ${(i * 7919) % 1000} open items. `;
    parts.push(sentence);
    size += sentence.length;
  }
  return parts.join("");
}

export function startFakeUpstream(): FakeUpstream {
  const received: ReceivedRequest[] = [];
  let gateWaiters: (() => void)[] = [];
  let abortedCount = 0;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 255,
    async fetch(request) {
      const url = new URL(request.url);
      const body = await request.text();
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => (headers[name] = value));
      received.push({ body, headers, path: url.pathname });
      if (url.pathname !== "/v1/chat/completions") return Response.json({ error: { message: "not found" } }, { status: 404 });

      const parsed = JSON.parse(body);
      const model: string = parsed.model;
      const lastUser = [...parsed.messages].reverse().find((m: { role: string }) => m.role === "user");
      const answer = model.startsWith("say:")
        ? model.slice(4)
        : model.startsWith("large:")
          ? largeAnswer(Number(model.slice(6)))
          : `echo: ${typeof lastUser?.content === "string" ? lastUser.content : "…"}`;

      if (model === "stall") {
        await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve()));
        return new Response("aborted", { status: 499 });
      }
      const errorStatus = /^error-(\d{3})$/.exec(model);
      if (errorStatus) {
        return Response.json({ error: { message: `fake provider error ${errorStatus[1]}`, type: "fake_error", code: "fake" } }, { status: Number(errorStatus[1]), headers: { "x-request-id": "fake-req" } });
      }
      const id = `chatcmpl-fake-${received.length}`;
      const usage = { prompt_tokens: 5, completion_tokens: answer.split(" ").length, total_tokens: 5 + answer.split(" ").length };
      if (!parsed.stream) {
        return Response.json(
          {
            id,
            object: "chat.completion",
            created: 1_700_000_000,
            model,
            choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop", logprobs: null }],
            usage,
          },
          { headers: { "x-request-id": "fake-req" } },
        );
      }

      const words = answer.split(/(?<= )/);
      const chunk = (delta: object, finish: string | null = null) =>
        encoder.encode(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          try {
            controller.enqueue(chunk({ role: "assistant", content: "" }));
            for (let i = 0; i < words.length; i++) {
              if (request.signal.aborted) throw new Error("client aborted");
              controller.enqueue(chunk({ content: words[i] }));
              if (model === "drop" && i === 1) {
                await Bun.sleep(20); // let the headers and first chunks leave before the break
                controller.error(new Error("connection dropped"));
                return;
              }
              if (model === "gated" && i === 0) await new Promise<void>((resolve) => gateWaiters.push(resolve));
              if (model === "slow") await Bun.sleep(30);
            }
            controller.enqueue(chunk({}, "stop"));
            if (model === "no-done") {
              controller.close();
              return;
            }
            controller.enqueue(encoder.encode(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1_700_000_000, model, choices: [], usage })}\n\n`));
            controller.enqueue(encoder.encode("data: [DONE]\n\n"));
            controller.close();
          } catch {
            abortedCount++;
          }
        },
        cancel() {
          abortedCount++;
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    received,
    openGate: () => {
      const waiting = gateWaiters;
      gateWaiters = [];
      for (const release of waiting) release();
    },
    aborted: () => abortedCount,
    stop: () => server.stop(true),
  };
}
