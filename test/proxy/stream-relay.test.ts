import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { configWith } from "../../src/config";
import { libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { firewallPatternKey, firewallScanOptions } from "../../src/firewall/encoder";
import { FirewallOutputMonitor } from "../../src/firewall/output-monitor";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { completionToSse, openaiChat } from "../../src/proxy/dialects/openai-chat";
import { relayStream, type StreamOutcome } from "../../src/proxy/stream-relay";
import { embedder } from "../embeddings/shared";

// The real model in worker threads, and the built-in library embedded when its shipped vectors do not apply.
setDefaultTimeout(120_000);

const ANSWER = "Sure, here is a short answer";

/** A provider stream delivered in one read: the role delta, one delta per word, the finish chunk, [DONE]. */
function oneReadStream(): ReadableStream<Uint8Array> {
  const sse = completionToSse({ id: "c1", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content: ANSWER }, finish_reason: "stop" }] });
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(sse));
      controller.close();
    },
  });
}

describe("stream relay with the output monitor", () => {
  test("events before the one a check is for are sent before the check ends: a one-read answer's words go out while its final check runs", async () => {
    const real = await embedder(true);
    const config = configWith({});
    const library = await libraryIndexInput(firewallPatternKey(config), (texts) => real.embedMany(texts));
    const patterns = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, CALIBRATION, real.dimensions));
    // The real model, held until the test lets the check finish.
    const release = Promise.withResolvers<void>();
    const held = { embedMany: async (texts: string[]) => (await release.promise, real.embedMany(texts)), peek: () => undefined };
    const monitor = new FirewallOutputMonitor(patterns, held, firewallScanOptions(config), "");
    let outcome: StreamOutcome | undefined;
    const relayed = relayStream({ requestId: "r1", dialect: openaiChat, upstream: oneReadStream(), abortUpstream: () => {}, monitor, idleTimeoutMs: 60_000, maxBytes: config.maxResponseBytes, maxEventBytes: config.maxSseEventBytes, hideUsage: false, onEnd: (o) => (outcome = o) });

    const reader = relayed.getReader();
    const decoder = new TextDecoder();
    const heldTooLong = Bun.sleep(20_000).then(() => {
      throw new Error("the relay held the answer's words until its final check ended");
    });
    const first = await Promise.race([reader.read(), heldTooLong]);
    const before = decoder.decode(first.value);
    expect(before).toContain(`"content":"${ANSWER}"`);
    expect(before).not.toContain("[DONE]"); // the end event waits for the check

    release.resolve();
    let after = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) after += decoder.decode(read.value);
    expect(after).toContain("[DONE]");
    expect(outcome?.kind).toBe("completed");
  });
});
