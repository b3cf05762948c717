import type { ProxiedRequest } from "./request";

export class UpstreamError extends Error {
  constructor(
    readonly kind: "unreachable" | "timeout",
    message: string,
  ) {
    super(message);
  }
}

export type UpstreamCall = {
  response: Response;
  /** Time to the provider's response headers. */
  upstreamMs: number;
  /** Aborts the provider request (client gone, firewall block, stall). */
  abort: (reason?: string) => void;
};

/** Response headers of the provider that reach the client; transport headers do not. */
const RELAYED_RESPONSE_HEADERS = /^(content-type|cache-control|retry-after|x-request-id|openai-.*|x-ratelimit-.*)$/i;

export function relayedHeaders(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (RELAYED_RESPONSE_HEADERS.test(name)) out[name] = value;
  });
  return out;
}

/**
 * POSTs the client's raw body to `<upstream>/chat/completions`. The timeout covers the wait
 * for response headers; a client disconnect aborts the provider request too.
 */
export async function callUpstream(request: ProxiedRequest, timeoutMs: number): Promise<UpstreamCall> {
  const controller = new AbortController();
  const abort = (reason = "aborted") => controller.abort(new Error(reason));
  const onClientGone = () => abort("client disconnected");
  request.clientSignal.addEventListener("abort", onClientGone, { once: true });
  const timer = setTimeout(() => abort("timeout"), timeoutMs);
  const started = performance.now();
  try {
    const response = await fetch(`${request.upstreamUrl}/chat/completions`, {
      method: "POST",
      headers: request.forwardHeaders,
      body: request.rawBody,
      signal: controller.signal,
      // Sieve relays bytes as they come; it never wants fetch to follow redirects to other hosts.
      redirect: "manual",
    });
    return { response, upstreamMs: performance.now() - started, abort };
  } catch (error) {
    request.clientSignal.removeEventListener("abort", onClientGone);
    if (controller.signal.aborted && (controller.signal.reason as Error)?.message === "timeout") {
      throw new UpstreamError("timeout", `the provider did not answer within ${timeoutMs} ms`);
    }
    throw new UpstreamError("unreachable", `cannot reach the provider at ${request.upstreamUrl}: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
