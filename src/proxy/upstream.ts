import type { AllowedHosts } from "../egress/allowed-hosts";
import { pinnedUpstream, UpstreamTargetRefused } from "../egress/upstream-target";
import type { ProxiedRequest } from "./request";

export class UpstreamError extends Error {
  constructor(
    readonly kind: "unreachable" | "timeout" | "refused",
    message: string,
    /** The network error, for the server log only. */
    readonly cause?: Error,
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
 * for response headers; a client disconnect aborts the provider request too. A workspace's own
 * upstream is reached only at an address checked against `allowed` (src/egress). Failure
 * messages never carry the network error: "refused" and "did not speak HTTP" must look alike,
 * or the proxy becomes a port scanner.
 */
export async function callUpstream(request: ProxiedRequest, timeoutMs: number, allowed: AllowedHosts): Promise<UpstreamCall> {
  const controller = new AbortController();
  const abort = (reason = "aborted") => controller.abort(new Error(reason));
  const onClientGone = () => abort("client disconnected");
  request.clientSignal.addEventListener("abort", onClientGone, { once: true });
  const timer = setTimeout(() => abort("timeout"), timeoutMs);
  const started = performance.now();
  try {
    const target = request.upstreamFromWorkspace ? await pinnedUpstream(request.upstreamUrl, allowed) : { url: request.upstreamUrl, headers: {}, tls: undefined };
    const response = await fetch(`${target.url}/chat/completions`, {
      method: "POST",
      headers: { ...request.forwardHeaders, ...target.headers },
      ...(target.tls ? { tls: target.tls } : {}),
      body: request.rawBody,
      signal: controller.signal,
      // Sieve relays bytes as they come; it never wants fetch to follow redirects to other hosts.
      redirect: "manual",
    });
    return { response, upstreamMs: performance.now() - started, abort };
  } catch (error) {
    request.clientSignal.removeEventListener("abort", onClientGone);
    if (error instanceof UpstreamTargetRefused) throw new UpstreamError("refused", error.message);
    if (controller.signal.aborted && (controller.signal.reason as Error)?.message === "timeout") {
      throw new UpstreamError("timeout", `the provider did not answer within ${timeoutMs} ms`);
    }
    throw new UpstreamError("unreachable", `cannot reach the provider at ${request.upstreamUrl}`, error as Error);
  } finally {
    clearTimeout(timer);
  }
}
