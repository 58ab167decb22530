// The pipeline of a /v1 call, in order. Each stage is a plain function with a typed input and a
// typed outcome; the transports (node:http and Next) read the request and write the answer, and
// the tRPC procedures run the same stages from `validate` on.
//
//   authenticate  credential -> principal (key, session token, x402 payer), and the
//                 operation's permission group                          pipeline/authenticate.ts
//   validate      the operation's raw input -> its zod input (400)      validate() below
//   [guardrails]  the caller's guardrails on the input's texts: block (400), redact, flag
//                                                                       guardrails/guard-call.ts
//   admit         plan's models, rate limits, spend caps, then a hold
//                 on the balance or an x402 payment -> Metering         admission/admit.ts
//   [cache]       the response cache: an entry here
//   route         a route's name -> its targets, tried in turn          pipeline/route-stage.ts
//                 the model -> a node, failing over before a first byte routing/nodes/router.ts
//   call provider the node's wire format, streams included              providers/
//   meter         units -> one usage event through the batched writer   ledger/meter.ts
//   [guardrails]  the same on the answer's texts, a stream's as it goes out
//   [log]         the request log: an entry here
//   answer        the result, and the call's outcome (rate limits, payment receipt, phase
//                 durations) that the transport writes as headers and closing frames
//
// An operation that calls a model returns a ModelCall (admission/admit.ts): what admission needs,
// and the route -> call provider -> meter of its modality (a stream meters at its end).
// The other operations (reads, the catalog, sessions) answer from their service directly.
import type { AnyOperation } from "../contract/operation";
import type { RouteMatch } from "../contract/routes";
import { callTags, headerTags } from "../request-log/tags";
import { accessFor, admit, ModelCall } from "../admission/admit";
import { peekRateLimits } from "../admission/limits/rate-gate";
import type { Principal } from "../identity/principal";
import { release } from "../ledger/meter";
import type { CallContext } from "../kernel/call-context";
import type { CallObserver } from "../kernel/call-observer";
import type { CallOutcome } from "../kernel/call-outcome";
import { hasIssues, validationError } from "../kernel/validation-error";
import { bodySizeOf, forgetBodySize, noteBodySize } from "../kernel/body-size";
import type { CacheHeaders } from "../response-cache/directive";
import { assertTier, authenticate, type Caller, type Credential, type Target } from "./authenticate";
import { planCache, runCached, type CachePlan } from "./cache-stage";
import { cacheOnByDefault } from "../identity/plans/plan-cache";
import { routedCall } from "./route-stage";
import { routeOf } from "../routing/routes/route-cache";
import { guardAnswer, guardInput } from "../guardrails/guard-call";

/** What the pipeline tells the request's telemetry (the transport's CallObservation). */
export type PipelineObserver = CallObserver & {
  operation(op: Extract<RouteMatch, { op: unknown }>["op"]): void;
  caller(principal: Principal): void;
  phase<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** The operation's input as read (its model; its body, for the request log's capture). */
  requested(input: Record<string, unknown>): void;
};

type NotServed = Exclude<RouteMatch, { kind: "served" }>;

/** A /v1 request as the transport hands it over. */
export type CallRequest = {
  requestId: string;
  /** Where the contract's route table put it. */
  match: RouteMatch;
  credential: Credential;
  /** The operation's raw input, gathered from where its declaration says (body, query, path, headers). */
  readInput: (op: AnyOperation, params: Record<string, string>) => Promise<Record<string, unknown>>;
  /** Answers a request no served operation matches (404, 405), once its caller is known. */
  notServed: (match: NotServed) => Promise<never>;
  /** A request header, by lower-case name, for the stages that take directives from the caller. */
  header: (name: string) => string | undefined;
  /** Filled in by the stages; the transport writes it on the answer, whatever the answer is. */
  outcome: CallOutcome;
  observer: PipelineObserver;
};

/** A call being run: its caller, what it produced beside its answer, and the cache headers it sent (none from the dashboard). */
export type RunningCall = Caller & { requestId: string; outcome: CallOutcome; observer?: CallObserver; cacheHeaders?: CacheHeaders; region?: string };

/** A path whose every operation needs no credential. */
const isOpen = (match: RouteMatch) => (match.kind === "served" && match.op.tier === "none") || (match.kind === "method_not_allowed" && match.open);

/** What authentication must know of the call's target; null for a path with no operation. */
function targetOf(match: RouteMatch): Target | null {
  if (match.kind === "served") {
    const { op } = match;
    return { spends: op.tier === "billed" && op.pricing.kind !== "free", x402: op.x402, permission: op.permission, method: op.method, path: op.path };
  }
  return null;
}

/** Runs a /v1 call through the stages; throws what refused or failed it (the transport answers it). */
export async function runCall(req: CallRequest): Promise<unknown> {
  const { match, observer } = req;
  if (match.kind === "served") observer.operation(match.op);
  const call: RunningCall = { requestId: req.requestId, principal: null, outcome: req.outcome, observer, cacheHeaders: { mode: req.header("x-gateway-cache"), ttl: req.header("x-gateway-cache-ttl") }, region: req.header("x-gateway-region") };
  try {
    // The credential is checked before anything else on every /v1 path (unknown ones too).
    if (!isOpen(match)) {
      const principal = await observer.phase("authenticate", () => authenticate(req.credential, targetOf(match)));
      observer.caller(principal);
      call.principal = principal;
      // What the caller may do is resolved while its input is read.
      if (principal.kind !== "user") void accessFor(call as CallContext<Principal>);
    }
    // Tags: the header's now (so a refused call carries them too), the metadata's once read.
    const tagHeader = req.header("x-gateway-tags");
    const tags = tagHeader ? headerTags(tagHeader) : {};
    if (tagHeader) req.outcome.tags = callTags(tags, undefined);
    if (match.kind !== "served") return await req.notServed(match);
    // An operation the response cache keeps says what the cache did on every answer, a refusal's too.
    if (match.op.cached) req.outcome.cache = "bypass";
    const raw = await req.readInput(match.op, match.params);
    observer.requested(raw);
    if (tagHeader || raw.metadata) req.outcome.tags = callTags(tags, raw.metadata);
    return await runOperation(match.op, call, raw);
  } finally {
    // [log]: the request log records the call here, answered or refused.
    await reportRateLimits(call);
  }
}

/** validate: the operation's input schema, a failure as the API's 400. The input keeps the size of the body it was read from. */
function validate(op: AnyOperation, raw: unknown): unknown {
  let input: unknown;
  try {
    input = op.input.parse(raw);
  } catch (err) {
    throw hasIssues(err) ? validationError(err.issues) : err;
  }
  const size = bodySizeOf(raw);
  if (size !== undefined && input !== raw && typeof input === "object" && input !== null) noteBodySize(input, size);
  return input;
}

/**
 * The stages after authentication, for a caller a host has established: shared by the /v1 hosts
 * and the tRPC procedures. Returns the operation's answer (JSON, an event stream, a binary body).
 */
export async function runOperation(op: AnyOperation, call: RunningCall, raw: unknown): Promise<unknown> {
  assertTier(op.tier, call, op.kind);
  const input = validate(op, raw);
  // The tier was checked: the principal is there for every tier but `none`, whose handlers take it as optional.
  const ctx = call as CallContext<Principal>;
  // [guardrails]: the caller's, from the rules its access already read (most callers have none).
  const guards = op.guarded && call.principal ? (await accessFor(ctx)).guardrails : null;
  if (!guards) return answerOf(op, ctx, input, call);
  const json = input as Record<string, unknown>;
  const guarded = { requestId: call.requestId, workspaceId: ctx.principal.workspaceId, model: typeof json.model === "string" ? json.model : null, outcome: call.outcome };
  if (await guardInput(guards, op.guarded!, json, guarded)) {
    forgetBodySize(json); // redacted: no longer the text that came
    call.observer?.redacted?.(json);
  }
  return guardAnswer(guards, await answerOf(op, ctx, input, call), guarded);
}

/** route, admit, [cache], call: the operation's answer. */
async function answerOf(op: AnyOperation, ctx: CallContext<Principal>, input: unknown, call: RunningCall): Promise<unknown> {
  // [route]: a `model` that names a route (a virtual model) is resolved to its targets here.
  let route = routeOf(call, input);
  if (route instanceof Promise) route = await route;
  const result = route ? await routedCall(op, ctx, input as Record<string, unknown>, route, call.region?.trim().toUpperCase() || null) : await op.handler(ctx, input);
  if (!(result instanceof ModelCall)) return result;
  const cache = op.cached ? await cachePlanFor(op, input as Record<string, unknown>, ctx, call.cacheHeaders ?? {}) : null;
  const metering = await admit(ctx, result.spec);
  try {
    // [cache]: a hit answers here; a miss runs the call and keeps its answer.
    return cache ? await runCached(cache, result, metering, ctx) : await result.run(metering);
  } catch (err) {
    release(metering);
    throw err;
  }
}

/** [cache], before admission: a call that neither asks for the cache nor has it on by default bypasses it at once. */
async function cachePlanFor(op: AnyOperation, input: Record<string, unknown>, ctx: CallContext<Principal>, headers: CacheHeaders): Promise<CachePlan | null> {
  if (headers.mode === undefined && !(await cacheOnByDefault(ctx.principal))) {
    ctx.outcome.cache = "bypass";
    return null;
  }
  return planCache(op, input, ctx, headers);
}

/** answer: every answer to a caller with rate limits reports them, also one not admitted through them. */
async function reportRateLimits(call: RunningCall): Promise<void> {
  const p = call.principal;
  const known = call.outcome.rateLimits;
  if (!p || p.kind === "user" || known?.requests || known?.tokens) return;
  const access = await accessFor(call as CallContext<Principal>).catch(() => null);
  if (access?.limitScope && (access.limits.rpm !== null || access.limits.tpm !== null)) call.outcome.rateLimits = peekRateLimits(access.limitScope, access.limits);
}
