// The telemetry of one /v1 request: made by the dispatcher, told by the ledger what the call was
// charged (call-observer.ts), and ended by the host as the answer ends (its last bytes wait for
// the row's spool write), or once the client left. Its end counts the request in the metrics,
// writes the request's log line, ends its span, and hands the request log (server/request-log/)
// the call's row.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { AnyOperation } from "../contract/operation";
import type { Principal } from "../identity/principal";
import { env } from "../infra/env";
import { logFor } from "../infra/telemetry/log";
import { metrics } from "../infra/telemetry/metrics";
import { context, contextOf, incomingContext, trace, tracer, tracingOn, type Span } from "../infra/telemetry/tracing";
import type { CallObserver, ChargedCall } from "../kernel/call-observer";
import type { CallOutcome } from "../kernel/call-outcome";
import { GatewayError } from "../kernel/errors";
import { BodyCapture } from "../request-log/capture/body-capture";
import { captureFor } from "../identity/plans/plan-cache";
import { policyOf } from "../request-log/capture/policy";
import { requestLogWriter } from "../request-log/log-writer";
import type { IncomingCall, Reply } from "./call";

const log = logFor("http");

/**
 * A log line per request (LOG_REQUESTS): `auto` writes one only while the request log is off;
 * with it on, every call is a row there already, and only failures (5xx) are written here too.
 */
const LOG_EVERY_REQUEST = env.LOG_REQUESTS === "true" || (env.LOG_REQUESTS === "auto" && env.REQUEST_LOG === "off");

/** Distinct model labels one process reports at most; past them, `other` (a client cannot grow the series without bound). */
const MAX_MODEL_LABELS = 200;
const modelLabels = new Set<string>();

function modelLabel(model: string): string {
  if (!model) return "";
  if (modelLabels.has(model)) return model;
  if (modelLabels.size >= MAX_MODEL_LABELS || model.length > 100) return "other";
  modelLabels.add(model);
  return model;
}

/** The OpenTelemetry GenAI operation of a /v1 operation (gen_ai.operation.name). */
function genAiOperation(opId: string): string | undefined {
  if (opId.startsWith("chat.") || opId === "responses.create") return "chat";
  if (opId.startsWith("embeddings.")) return "embeddings";
  if (opId.startsWith("images.") || opId.startsWith("audio.") || opId === "videos.create") return "generate_content";
  return undefined;
}

export class CallObservation implements CallObserver {
  /** The operation's path template (`/v1/videos/{video_id}`), or what kind of request it was. */
  route = "unmatched";
  private opId = "";
  private credential = "none";
  private principal: Principal | null = null;
  private model = "";
  private nodeMs = 0;
  private nodeId: string | null = null;
  private inputTokens = 0;
  private usageEstimated = false;
  private outputTokens = 0;
  private cost: string | null = null;
  private readonly span: Span | undefined;
  private ended = false;
  /** What the call produced beside its answer (its tags, cache status, x402 receipt); set by the dispatcher. */
  outcome: CallOutcome | undefined;
  private errorCode: string | null = null;
  private firstByteMs: number | null = null;
  private readonly createdAt = new Date();
  /** The call's input as read, and its bodies' capture when its workspace (or key) keeps them. */
  private input: unknown = undefined;
  private capture: Promise<BodyCapture | null> | null = null;
  private captured: BodyCapture | null = null;

  constructor(
    readonly requestId: string,
    private readonly call: IncomingCall,
    private readonly startedAt: number,
  ) {
    if (tracingOn()) {
      this.span = tracer().startSpan(
        call.method,
        { kind: SpanKind.SERVER, attributes: { "http.request.method": call.method, "url.path": call.path, "gateway.request_id": requestId } },
        incomingContext(call.header),
      );
    }
  }

  /** Runs the request's work with its span active (node calls made in it become its children). */
  within<T>(work: () => Promise<T>): Promise<T> {
    return this.span ? context.with(trace.setSpan(context.active(), this.span), work) : work();
  }

  /** Runs a phase of the request (authentication) as a child span when traced. */
  phase<T>(name: string, work: () => Promise<T>): Promise<T> {
    if (!this.span) return work();
    return tracer().startActiveSpan(name, {}, contextOf(this.span), (s) =>
      work().then(
        (value) => (s.end(), value),
        (err: unknown) => {
          s.setStatus({ code: SpanStatusCode.ERROR });
          s.end();
          throw err;
        },
      ),
    );
  }

  operation(op: AnyOperation): void {
    this.route = op.path;
    this.opId = "id" in op ? op.id : "";
  }

  caller(principal: Principal): void {
    this.principal = principal;
    this.credential = principal.kind;
    if (env.REQUEST_LOG === "on") this.capture = captureFor(principal).then((s) => s && new BodyCapture(policyOf(s), this.route), () => null);
  }

  /** The operation's input, once read: the model it names (and the request body, when captured). */
  requested(input: Record<string, unknown>): void {
    if (typeof input.model === "string") this.model = input.model;
    this.input = input;
  }

  redacted(input: Record<string, unknown>): void {
    this.input = input;
  }

  /** Taps the answer for its capture, when the call's workspace or key keeps its bodies. */
  async captureAnswer(reply: Reply): Promise<void> {
    const capture = this.capture && (await this.capture);
    if (!capture) return;
    this.captured = capture;
    if (reply.kind === "json") capture.json(reply.body);
    else if (reply.kind === "sse") reply.events = capture.tap(reply.events);
    else if (reply.kind === "binary") {
      const { body, contentType, length } = reply.body;
      if (typeof body === "string") capture.json(body);
      else capture.media(contentType, body instanceof Uint8Array ? body.byteLength : (length ?? null));
    }
  }

  charged(c: ChargedCall): void {
    this.nodeMs += c.nodeMs;
    this.nodeId = c.nodeId;
    this.model = c.modelId;
    this.inputTokens += c.inputTokens;
    this.outputTokens += c.outputTokens;
    this.cost = c.cost; // one charge per request (its usage event)
    if (c.usageEstimated) this.usageEstimated = true;
  }

  settled(cost: string): void {
    this.cost = cost;
  }

  usageWrite<T>(write: Promise<T>): Promise<T> {
    if (!this.span) return write;
    const s = tracer().startSpan("usage write", {}, contextOf(this.span));
    return write.finally(() => s.end());
  }

  /** The answer's first byte went out (its head, or a stream's first event). */
  firstByte(): void {
    this.firstByteMs ??= performance.now() - this.startedAt;
  }

  /** The call was refused or failed (before its answer, or mid-stream): its error code. */
  failed(err: unknown): void {
    this.errorCode ??= err instanceof GatewayError ? err.code : "internal_error";
  }

  /**
   * The answer is about to end (its last bytes are written once the returned write of its log row
   * to the spool is down, so a process killed right after answering loses no row; `now`: written
   * at once, in this turn), or the client left. Later calls do nothing.
   */
  end(status: number, now = false): Promise<void> | undefined {
    if (this.ended) return undefined;
    this.ended = true;
    const seconds = (performance.now() - this.startedAt) / 1000;
    const m = metrics();
    const model = status === 400 || status === 404 ? "" : modelLabel(this.model);
    m.requests.inc({ route: this.route, method: this.call.method, status: String(status), credential: this.credential, model });
    m.requestDuration.observe({ route: this.route }, seconds);
    if (this.nodeId) m.overhead.observe({ route: this.route }, Math.max(0, seconds - this.nodeMs / 1000));
    if (this.nodeId) m.upstreamDuration.observe({ model: this.model, node: this.nodeId }, this.nodeMs / 1000);
    if (this.span) this.endSpan(status);
    if (status >= 500 || LOG_EVERY_REQUEST) this.writeLog(status, seconds);
    if (env.REQUEST_LOG === "on" && this.call.path.startsWith("/v1/")) return this.recordRow(status, seconds, now);
    return undefined;
  }

  private recordRow(status: number, seconds: number, now: boolean): Promise<void> | undefined {
    const p = this.principal;
    const o = this.outcome;
    return requestLogWriter().record({
      id: this.requestId,
      createdAt: this.createdAt.toISOString(),
      workspaceId: p?.workspaceId ?? null,
      method: this.call.method,
      route: this.route,
      model: this.model || null,
      nodeId: this.nodeId,
      credential: this.credential,
      apiKeyId: p?.keyId ?? null,
      planId: p && (p.kind === "api_key" || p.kind === "session") ? p.planId : null,
      subject: p?.kind === "session" ? p.subject : null,
      payer: o?.payment?.payer ?? null,
      status,
      errorCode: this.errorCode ?? (status >= 400 ? `http_${status}` : null),
      durationMs: seconds * 1000,
      upstreamMs: this.nodeId ? this.nodeMs : null,
      firstByteMs: this.firstByteMs,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      cost: this.cost,
      usageEstimated: this.usageEstimated,
      cache: o?.cache ?? null,
      tags: o?.tags ?? null,
      routing: o?.routing ?? null,
      guardrails: o?.guardrails ?? null,
      clientIp: this.call.clientIp?.() ?? null,
      userAgent: this.call.header("user-agent") ?? null,
      body: this.captured && (this.captured.request(this.input), this.captured.finish()),
    }, now);
  }

  private endSpan(status: number): void {
    const s = this.span!;
    s.updateName(this.route === "unmatched" ? this.call.method : `${this.call.method} ${this.route}`);
    s.setAttribute("http.response.status_code", status);
    if (this.route.startsWith("/")) s.setAttribute("http.route", this.route);
    const operation = genAiOperation(this.opId);
    if (operation) s.setAttribute("gen_ai.operation.name", operation);
    if (this.model) s.setAttribute("gen_ai.request.model", this.model);
    if (this.nodeId) {
      s.setAttributes({ "gen_ai.usage.input_tokens": this.inputTokens, "gen_ai.usage.output_tokens": this.outputTokens, "gateway.node_id": this.nodeId });
      if (this.cost !== null) s.setAttribute("gateway.cost_usd", this.cost);
    }
    if (this.principal) s.setAttributes({ "gateway.workspace_id": this.principal.workspaceId, "gateway.credential": this.credential });
    if (status >= 500) s.setStatus({ code: SpanStatusCode.ERROR });
    s.end();
  }

  private writeLog(status: number, seconds: number): void {
    const p = this.principal;
    const line: Record<string, unknown> = {
      requestId: this.requestId,
      method: this.call.method,
      path: this.call.path,
      route: this.route,
      status,
      credential: this.credential,
      durationMs: Math.round(seconds * 10_000) / 10,
    };
    if (p) {
      line.workspaceId = p.workspaceId;
      if (p.keyId) line.keyId = p.keyId;
    }
    if (this.model) line.model = this.model.slice(0, 100);
    if (this.nodeId) {
      line.nodeId = this.nodeId;
      line.nodeMs = Math.round(this.nodeMs * 10) / 10;
      line.gatewayMs = Math.round(Math.max(0, seconds * 1000 - this.nodeMs) * 10) / 10;
      line.inputTokens = this.inputTokens;
      line.outputTokens = this.outputTokens;
      line.cost = this.cost;
      if (this.usageEstimated) line.usageEstimated = true;
    }
    if (this.span) line.traceId = this.span.spanContext().traceId;
    if (status >= 500) log.error(line, "request failed");
    else if (this.route === "/health") log.debug(line, "request"); // a load balancer's probes, every few seconds
    else log.info(line, "request");
  }
}
