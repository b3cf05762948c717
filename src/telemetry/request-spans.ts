import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { PipelineDeps } from "../proxy/pipeline";
import type { ProxiedRequest } from "../proxy/request";
import { strongest, type CachedCompletion, type FirewallVerdict, type OutputMonitor } from "../proxy/stages";
import type { Metered } from "../usage/meter";

const propagator = new W3CTraceContextPropagator();
const RESPONSE_MODEL = /"model"\s*:\s*"([^"\\]{1,256})"/;
const headerGetter = { get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined, keys: (carrier: Headers) => [...carrier.keys()] };
const recordSetter = { set: (carrier: Record<string, string>, key: string, value: string) => void (carrier[key] = value) };

/** Prompt and completion text in a span (only for workspaces that log bodies): the first 8 KiB. */
const MAX_TEXT_ATTRIBUTE = 8 * 1024;

/**
 * One span per proxied request (continuing the client's W3C traceparent), with a child span per
 * stage: the input firewall, the cache lookup, the provider call (its traceparent sent on to the
 * provider; a routed request's tries as children of it) and the output check. Attributes follow
 * the OpenTelemetry GenAI conventions (gen_ai.*) plus Sieve's own (sieve.*). The stages are wrapped,
 * not changed: with tracing off nothing here runs.
 */
export class RequestSpans {
  /** By request id: a stage may hand on a copy of the request (data protection rewrites its body). */
  readonly #spans = new Map<string, Span>();

  constructor(private readonly tracer: Tracer) {}

  /** The request's span, as a child of the client's traceparent when it sent one. */
  start(request: Request, api: string): Span {
    const parent = propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
    return this.tracer.startSpan(api, { kind: SpanKind.SERVER }, parent);
  }

  /** Ties the read request to its span, with what is known before any stage ran. */
  attach(request: ProxiedRequest, span: Span): void {
    span.updateName(`${operationOf(request)} ${request.view.model}`);
    span.setAttributes({
      "gen_ai.operation.name": operationOf(request),
      "gen_ai.system": request.dialect.provider,
      "gen_ai.request.model": request.view.model,
      "sieve.request_id": request.requestId,
      "sieve.stream": request.stream,
    });
    if (request.workspace.logBodies) span.setAttribute("gen_ai.input.messages", request.rawBody.slice(0, MAX_TEXT_ATTRIBUTE));
    this.#spans.set(request.requestId, span);
  }

  /** Ends a request span the pipeline did not finish (refused or failed before or outside it). */
  fail(span: Span, requestId: string, status: number, error: unknown): void {
    this.#spans.delete(requestId);
    if (!span.isRecording()) return;
    span.setAttribute("http.response.status_code", status);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.end();
  }

  /** The pipeline's stages, each call in a child span of its request's span. */
  wrap(deps: PipelineDeps): PipelineDeps {
    const { firewall, cache, upstream, usage } = deps;
    const child = <T>(request: ProxiedRequest, name: string, kind: SpanKind, work: (span: Span | undefined) => Promise<T>): Promise<T> => {
      const parent = this.#spans.get(request.requestId);
      if (!parent) return work(undefined);
      const span = this.tracer.startSpan(name, { kind }, trace.setSpan(ROOT_CONTEXT, parent));
      return work(span).then(
        (value) => (span.end(), value),
        (error: Error) => {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          span.end();
          throw error;
        },
      );
    };
    const cacheSpan = (request: ProxiedRequest, lookup: (request: ProxiedRequest) => Promise<CachedCompletion | undefined>) =>
      child(request, "sieve.cache", SpanKind.INTERNAL, async (span) => {
        const hit = await lookup(request);
        span?.setAttribute("sieve.cache.status", hit ? "hit" : "miss");
        return hit;
      });
    const verdictOf = (span: Span | undefined, verdict: FirewallVerdict) => {
      span?.setAttributes({ "sieve.firewall.verdict": verdict.action, ...(verdict.family ? { "sieve.firewall.family": verdict.family } : {}) });
      return verdict;
    };
    return {
      ...deps,
      firewall: {
        checkInput: (request) => child(request, "sieve.firewall", SpanKind.INTERNAL, async (span) => verdictOf(span, await firewall.checkInput(request))),
        outputMonitor: (request) => {
          const monitor = firewall.outputMonitor(request);
          if (!monitor) return undefined;
          const traced: OutputMonitor = {
            inspect: (added, soFar) => monitor.inspect(added, soFar),
            finish: (text) => child(request, "sieve.output_check", SpanKind.INTERNAL, async (span) => verdictOf(span, await monitor.finish(text))),
          };
          return traced;
        },
      },
      cache: {
        // The stage may be a class: its other methods are called on it, not copied off it.
        store: (request, completion, upstreamMs) => cache.store(request, completion, upstreamMs),
        ...(cache.claim ? { claim: (request: ProxiedRequest) => cache.claim!(request) } : {}),
        ...(cache.prepare ? { prepare: (request: ProxiedRequest) => cache.prepare!(request) } : {}),
        ...(cache.rejectedCandidate ? { rejectedCandidate: (request: ProxiedRequest) => cache.rejectedCandidate!(request) } : {}),
        lookup: (request) => cacheSpan(request, (r) => cache.lookup(r)),
        // Parallel mode's two halves, each a cache span of its own.
        ...(cache.lookupExact ? { lookupExact: (request: ProxiedRequest) => cacheSpan(request, (r) => cache.lookupExact!(r)) } : {}),
        ...(cache.lookupSemantic ? { lookupSemantic: (request: ProxiedRequest) => cacheSpan(request, (r) => cache.lookupSemantic!(r)) } : {}),
      },
      upstream: {
        send: (request) =>
          child(request, `${operationOf(request)} ${request.view.model}`, SpanKind.CLIENT, async (span) => {
            if (span) propagator.inject(trace.setSpan(ROOT_CONTEXT, span), request.forwardHeaders, recordSetter);
            const started = Date.now();
            const call = await upstream.send(request);
            span?.setAttributes({ "gen_ai.system": request.dialect.provider, "gen_ai.request.model": request.view.model, "http.response.status_code": call.response.status });
            // A routed request's tries, one after another, each as a child of the provider call.
            let at = started;
            for (const attempt of call.routed?.attempts ?? []) {
              const tried = this.tracer.startSpan("sieve.upstream.attempt", { kind: SpanKind.CLIENT, startTime: at, attributes: { "sieve.target": attempt.target, "sieve.attempt.outcome": attempt.outcome, ...(attempt.status !== null ? { "http.response.status_code": attempt.status } : {}) } }, trace.setSpan(ROOT_CONTEXT, span!));
              at += attempt.ms;
              tried.end(at);
            }
            return call;
          }),
      },
      usage: {
        meter: (metering, outcome) => {
          const metered = usage.meter(metering, outcome);
          // The pipeline meters the whole request it ran.
          const request = metering as ProxiedRequest;
          const finish = (result: Metered) => {
            const span = this.#spans.get(request.requestId);
            if (span) {
              this.#spans.delete(request.requestId);
              span.setAttributes(endAttributes(request, outcome.status, outcome.cacheStatus, strongest(outcome.verdicts).action, result, outcome.responseBody));
              if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? String(outcome.status) });
              span.end();
            }
            return result;
          };
          return metered instanceof Promise ? metered.then(finish) : finish(metered);
        },
      },
    };
  }
}

function operationOf(request: ProxiedRequest): string {
  return request.dialect.name === "openai_chat" ? "chat" : request.dialect.name === "openai_responses" ? "responses" : "messages";
}

function endAttributes(request: ProxiedRequest, status: number, cacheStatus: string, verdict: string, metered: Metered, responseBody: string | undefined): Attributes {
  const { usage } = metered;
  // Every dialect's answer names its model at the top level, before any content.
  const responseModel = responseBody ? RESPONSE_MODEL.exec(responseBody.slice(0, 4096))?.[1] : undefined;
  return {
    ...(responseModel ? { "gen_ai.response.model": responseModel } : {}),
    "http.response.status_code": status,
    "sieve.cache.status": cacheStatus,
    "sieve.firewall.verdict": verdict,
    ...(usage?.prompt_tokens !== undefined ? { "gen_ai.usage.input_tokens": usage.prompt_tokens } : {}),
    ...(usage?.completion_tokens !== undefined ? { "gen_ai.usage.output_tokens": usage.completion_tokens } : {}),
    ...(metered.costUsd !== null ? { "sieve.cost_usd": metered.costUsd } : {}),
    ...(metered.estimated ? { "sieve.usage.estimated": true } : {}),
    ...(request.workspace.logBodies && responseBody ? { "gen_ai.output.messages": responseBody.slice(0, MAX_TEXT_ATTRIBUTE) } : {}),
  };
}
