// OpenTelemetry traces. Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set,
// and then nothing is done per request: callers check `tracingOn()` before they make a span.
// On, spans go out over OTLP/HTTP in batches, and the active span follows the request through
// its awaits (an AsyncLocalStorage context manager), so a node call's span is a child of its
// request's wherever in the code the call is made.
// The SDK and the exporter are loaded only then: a process that does not trace never loads them.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { NodeTracerProvider, SpanExporter } from "@opentelemetry/sdk-trace-node";
import { env } from "../env";

const state = globalThis as unknown as { gatewayTracing?: { provider: NodeTracerProvider; tracer: Tracer } };

/** Installs the SDK with the exporter `exporterOf` makes: in batches (OTLP), or each span as it ends (tests). */
async function install(exporterOf: () => Promise<SpanExporter>, batched: boolean): Promise<void> {
  const [sdk, { resourceFromAttributes }, exporter] = await Promise.all([import("@opentelemetry/sdk-trace-node"), import("@opentelemetry/resources"), exporterOf()]);
  const provider = new sdk.NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME }),
    spanProcessors: [batched ? new sdk.BatchSpanProcessor(exporter) : new sdk.SimpleSpanProcessor(exporter)],
  });
  // Registers the provider, the context manager and the W3C trace-context propagator globally.
  provider.register();
  state.gatewayTracing = { provider, tracer: provider.getTracer("model-gateway") };
}

/** Starts exporting traces when the environment asks for it. Idempotent. */
export async function startTracing(): Promise<void> {
  if (state.gatewayTracing || !(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return;
  // The exporter reads the OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers, timeout).
  await install(async () => new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter(), true);
}

/** Sends the spans to `exporter` as each ends (tests: an in-memory exporter). */
export async function traceTo(exporter: SpanExporter): Promise<void> {
  if (state.gatewayTracing) throw new Error("tracing is already on");
  await install(async () => exporter, false);
}

/** Exports what is left and stops. */
export async function stopTracing(): Promise<void> {
  const t = state.gatewayTracing;
  state.gatewayTracing = undefined;
  await t?.provider.shutdown();
}

export function tracingOn(): boolean {
  return state.gatewayTracing !== undefined;
}

/** Whether tracing is on and the code runs on behalf of a traced request (not background work). */
export function inTrace(): boolean {
  return state.gatewayTracing !== undefined && trace.getActiveSpan() !== undefined;
}

/** The gateway's tracer; only called when tracing is on. */
export function tracer(): Tracer {
  return state.gatewayTracing!.tracer;
}

/** The trace a request continues (its `traceparent` header), or none. */
export function incomingContext(header: (name: string) => string | undefined): Context {
  return propagation.extract(context.active(), {}, { keys: () => ["traceparent", "tracestate"], get: (_carrier, key) => header(key) });
}

/**
 * A client span for a call this process makes (to a node), child of the active span, and the
 * headers that carry it to the callee (`traceparent`). `end` ends it, failed when given an error.
 */
export function clientSpan(name: string, attributes: Attributes): { headers: Record<string, string>; end: (err?: unknown) => void } {
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), headers);
  let ended = false;
  const end = (err?: unknown) => {
    if (ended) return;
    ended = true;
    if (err) span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    span.end();
  };
  return { headers, end };
}

/** `parent`'s context, for a span started where the active context is not the request's. */
export const contextOf = (parent: Span): Context => trace.setSpan(context.active(), parent);

export { context, trace, type Span };

/** Adds the active span's `traceparent` to the headers of a request this process makes (when traced). */
export function injectTrace(headers: Headers): void {
  if (!inTrace()) return;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
}
