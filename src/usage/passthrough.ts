/**
 * Usage of pass-through answers (embeddings, legacy completions, a fetched Responses object, …):
 * a JSON answer is relayed to the client unchanged as it arrives, while its first
 * MAX_METERED_BODY_BYTES are kept; once it has been read whole, the usage it states (OpenAI's
 * prompt/completion or input/output tokens, Anthropic's input/output tokens) is metered like a
 * proxied request's. Larger answers, streams and answers without a usage field are recorded
 * without tokens: a pass-through body is never buffered before it reaches the client.
 */
import { messagesUsage } from "../proxy/dialects/messages-transcript";
import { chatUsage } from "../proxy/dialects/openai-chat";
import { responsesUsage } from "../proxy/dialects/responses-transcript";
import type { Usage } from "../proxy/dialects/dialect";

/** Answers with usage are small (an embeddings answer of 2,048 vectors is ~25 MB, and is not metered). */
export const MAX_METERED_BODY_BYTES = 1024 * 1024;

/** Whether an answer is worth keeping for its usage: a successful JSON body that is not an event stream. */
export function meterable(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  const length = Number(response.headers.get("content-length") ?? 0);
  return response.ok && response.body !== null && type.includes("json") && length <= MAX_METERED_BODY_BYTES;
}

/** The model and usage an answer states, in the evidence log's terms; undefined usage when it states none. */
export function answerUsage(provider: "openai" | "anthropic", bytes: Uint8Array): { model: string | undefined; usage: Usage | undefined } {
  let body: { model?: unknown; usage?: Record<string, unknown> };
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { model: undefined, usage: undefined };
  }
  const model = typeof body?.model === "string" ? body.model : undefined;
  const usage = body?.usage;
  if (!usage || typeof usage !== "object") return { model, usage: undefined };
  if (provider === "anthropic") return { model, usage: messagesUsage(usage) };
  return { model, usage: "input_tokens" in usage ? responsesUsage(usage) : "prompt_tokens" in usage ? chatUsage(usage) : undefined };
}

/**
 * The body as the client receives it, unchanged and unbuffered; `done` gets its bytes once it has
 * been read whole within `max`, or undefined (longer, broken off, or the client went away).
 */
export function tapBody(body: ReadableStream<Uint8Array>, max: number, done: (bytes: Uint8Array | undefined) => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let parts: Uint8Array[] = [];
  let size = 0;
  let settled = false;
  const settle = (bytes: Uint8Array | undefined) => {
    if (settled) return;
    settled = true;
    done(bytes);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done: ended } = await reader.read();
          if (ended) {
            controller.close();
            settle(size <= max ? Buffer.concat(parts, size) : undefined);
            return;
          }
          size += value.length;
          if (size <= max) parts.push(value);
          else parts = [];
          controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          settle(undefined);
        }
      },
      cancel(reason) {
        settle(undefined);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
