import type { AllowedHosts } from "../egress/allowed-hosts";
import { pinnedUpstream, UpstreamHostUnresolved, UpstreamTargetRefused } from "../egress/upstream-target";
import { BodyTooLargeError, readBoundedBody } from "../http/bounded-body";
import type { AttemptOutcome } from "../routing/retry-policy";
import type { ProxiedRequest } from "./request";
import type { UpstreamStage } from "./stages";

/** One try at one target of a route, as the evidence lists it. */
export type UpstreamAttempt = { target: string; outcome: AttemptOutcome; status: number | null; ms: number };

export class UpstreamError extends Error {
  /** A routed request's tries, each failed (src/routing). */
  attempts: UpstreamAttempt[] | undefined;

  constructor(
    /** unavailable: every target of the route is out of rotation (circuit open); too_large: the answer passed --max-response-bytes. */
    readonly kind: "unreachable" | "timeout" | "refused" | "unavailable" | "too_large",
    message: string,
    /** The network error, for the server log only. */
    readonly cause?: Error,
  ) {
    super(message);
  }

  /** The status Sieve answers with: the provider was too slow (504), not reached (502), or is known to be down (503). */
  get status(): 502 | 503 | 504 {
    return this.kind === "timeout" ? 504 : this.kind === "unavailable" ? 503 : 502;
  }

  /** The error code of the body, one per kind (spec's upstream_* codes). */
  get code(): `upstream_${UpstreamError["kind"]}` {
    return `upstream_${this.kind}`;
  }
}

export type UpstreamCall = {
  response: Response;
  /** Time to the provider's response headers. */
  upstreamMs: number;
  /** Aborts the provider request (client gone, firewall block, stall). */
  abort: (reason?: string) => void;
  /** A routed request: the target that answered and every try it took (src/routing). */
  routed?: { target: string; attempts: UpstreamAttempt[]; idleTimeoutMs: number };
};

/**
 * A provider answer's body as text, reading at most `maxBytes` (--max-response-bytes): past it the
 * rest is cancelled and UpstreamError "too_large" is thrown, so one answer cannot take the
 * server's memory. Other read failures are rethrown as they are.
 */
export async function readAnswerText(response: Response, maxBytes: number): Promise<string> {
  try {
    return new TextDecoder().decode(await readBoundedBody(response, maxBytes));
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new UpstreamError("too_large", `the provider's answer is larger than --max-response-bytes (${maxBytes} bytes)`);
    throw error;
  }
}

/**
 * Response headers of the provider that reach the client; transport headers (and a length fetch
 * may have changed by decompressing) do not.
 */
const RELAYED_RESPONSE_HEADERS = /^(content-type|cache-control|retry-after|x-request-id|request-id|openai-.*|anthropic-.*|x-ratelimit-.*)$/i;
/** A pass-through answer may also be a file, a redirect or a cacheable resource. */
const RELAYED_PASSTHROUGH_HEADERS = /^(content-disposition|etag|last-modified|location)$/i;

export function relayedHeaders(response: Response, { passthrough = false } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (RELAYED_RESPONSE_HEADERS.test(name) || (passthrough && RELAYED_PASSTHROUGH_HEADERS.test(name))) out[name] = value;
  });
  return out;
}

/** One request to the provider: the dialect's POST, or a pass-through of any method. */
export type UpstreamTarget = {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** A string, or the client's body stream relayed as it arrives (uploads are never buffered). */
  body: string | ReadableStream<Uint8Array> | null;
  /** Aborted when the client goes away: the provider request is aborted too. */
  clientSignal: AbortSignal;
  /** The URL is a workspace's own setting: reached only at an address checked against the allowed hosts (src/egress). */
  checkAddress: boolean;
};

/**
 * Sends a request to the provider. The timeout covers the wait for response headers; a client
 * disconnect aborts the provider request too. Failure messages never carry the network error:
 * "refused" and "did not speak HTTP" must look alike, or the proxy becomes a port scanner.
 */
export async function callUpstream(target: UpstreamTarget, timeoutMs: number, allowed: AllowedHosts): Promise<UpstreamCall> {
  const controller = new AbortController();
  const abort = (reason = "aborted") => controller.abort(new Error(reason));
  const onClientGone = () => abort("client disconnected");
  target.clientSignal.addEventListener("abort", onClientGone, { once: true });
  const timer = setTimeout(() => abort("timeout"), timeoutMs);
  const started = performance.now();
  try {
    const pinned = target.checkAddress ? await pinnedUpstream(target.url, allowed) : { url: target.url, headers: {}, tls: undefined };
    const response = await fetch(pinned.url, {
      method: target.method,
      headers: { ...target.headers, ...pinned.headers },
      ...(pinned.tls ? { tls: pinned.tls } : {}),
      body: target.body,
      signal: controller.signal,
      // Sieve relays bytes as they come; it never wants fetch to follow redirects to other hosts.
      redirect: "manual",
      ...(target.body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
    return { response, upstreamMs: performance.now() - started, abort };
  } catch (error) {
    target.clientSignal.removeEventListener("abort", onClientGone);
    if (error instanceof UpstreamTargetRefused) throw new UpstreamError("refused", error.message);
    if (error instanceof UpstreamHostUnresolved) throw new UpstreamError("unreachable", error.message);
    if (controller.signal.aborted && (controller.signal.reason as Error)?.message === "timeout") {
      throw new UpstreamError("timeout", `the provider did not answer within ${timeoutMs} ms (--upstream-timeout-ms); retry, or raise the timeout`);
    }
    throw new UpstreamError("unreachable", `cannot reach the provider at ${new URL(target.url).origin}: check --upstream-url (or the workspace's upstream_url) and that the provider is up`, error as Error);
  } finally {
    clearTimeout(timer);
  }
}

/** The spec's forwarding: the dialect's path at the workspace's (or the server's) provider, one attempt. */
export function directUpstream(timeoutMs: number, allowed: AllowedHosts): UpstreamStage {
  return {
    send: (request: ProxiedRequest) =>
      callUpstream(
        { url: request.upstreamUrl + request.dialect.upstreamPath, method: "POST", headers: request.forwardHeaders, body: request.rawBody, clientSignal: request.clientSignal, checkAddress: request.upstreamFromWorkspace },
        timeoutMs,
        allowed,
      ),
  };
}
