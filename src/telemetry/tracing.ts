import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Tracer } from "@opentelemetry/api";
import { VERSION } from "../version";

export type Tracing = { tracer: Tracer; /** Exports the spans ended so far (batches otherwise leave every 5 s). */ flush: () => Promise<void>; shutdown: () => Promise<void> };

/**
 * OpenTelemetry traces, off by default: on when --otlp-endpoint or the standard
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED
 * is not true). Spans go over OTLP/HTTP (JSON) in batches; the exporter itself honours the other
 * OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression), and OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES name the resource.
 */
export function startTracing(otlpEndpoint: string, env: Record<string, string | undefined>): Tracing | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return undefined;
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!otlpEndpoint && !fromEnv) return undefined;
  const exporter = new OTLPTraceExporter(otlpEndpoint ? { url: `${otlpEndpoint.replace(/\/+$/, "")}/v1/traces` } : {});
  const resource = resourceFromAttributes({ "service.name": "sieve", "service.version": VERSION }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  return { tracer: provider.getTracer("sieve", VERSION), flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}
