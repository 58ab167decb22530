// route (for a call whose `model` names a route, a virtual model: server/routing/routes/): the
// route's conditions and strategy give the targets to try in order (plan-route.ts); the operation's
// service makes each target's model call (so each is validated and priced as if called directly);
// the call is admitted once, for the dearest of them; then the targets are tried in turn, a failure
// the route retries moving to the next, never to one that already failed in this call, with
// backoff, a rate-limited target's Retry-After honoured up to the route's max_wait_ms, and a prompt
// too long for one model moving to a model with a larger context. The call is billed at the prices
// of the model that answered, once. What happened is the call's routing outcome: headers
// (x-gateway-route, -target, -attempts), the request log's row, the metrics.
import type { AnyOperation } from "../contract/operation";
import { accessFor, ModelCall } from "../admission/admit";
import type { Principal } from "../identity/principal";
import type { CallContext } from "../kernel/call-context";
import { metrics } from "../infra/telemetry/metrics";
import type { AttemptScope } from "../kernel/attempt-scope";
import type { RouteAttempt, RoutingOutcome } from "../kernel/call-outcome";
import { GatewayError } from "../kernel/errors";
import type { Money } from "../kernel/money";
import { getCatalog } from "../routing/catalog/catalog-cache";
import type { ConditionFacts } from "../routing/routes/route-conditions";
import { allRoutes, routesNow, type LoadedRoute } from "../routing/routes/route-cache";
import { planRoute, type Candidate } from "../routing/routes/plan-route";
import type { RetryOn } from "../routing/routes/route-schema";
import { targetHealth } from "../routing/routes/target-health";
import { coolDown, listenForCoolDowns, recordLatency, startAttempt } from "../routing/routes/target-stats";

type Json = Record<string, unknown>;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Distinct route and target labels one process reports at most; past them, `other` (workspaces name their routes: the series stay bounded). */
const MAX_LABELS = 200;
const labels = new Set<string>();
function label(value: string): string {
  if (labels.has(value)) return value;
  if (labels.size >= MAX_LABELS || value.length > 100) return "other";
  labels.add(value);
  return value;
}

/** The failure kinds a route may retry, of a failed attempt; null: a failure no route retries (it is about the request, the caller or the money). */
function failureKind(err: unknown): RetryOn | null {
  if (!(err instanceof GatewayError)) return null;
  if (err.status === 429) return err.code === "rate_limit_exceeded" ? null : "429"; // the caller's own limits are not a target's failure
  if (err.code === "upstream_timeout" || err.status === 504) return "timeout";
  if (err.status >= 500) return "5xx";
  if (err.status === 400 && /context_length|too long|maximum context/i.test(`${err.code} ${err.message}`)) return "context_length";
  return null;
}

function retryAfterMs(err: unknown): number | null {
  const v = err instanceof GatewayError ? err.detail.retryAfter : undefined;
  const s = typeof v === "number" ? v : typeof v === "string" ? Number(v) : NaN;
  return Number.isFinite(s) && s >= 0 ? s * 1000 : null;
}

const IMAGE_PART = /"type":"(image_url|input_image|image)"/;

/** What a route's conditions may read of the call (route-conditions.ts). */
async function factsOf(ctx: CallContext<Principal>, input: Json, routeName: string): Promise<ConditionFacts> {
  const p = ctx.principal;
  const access = await accessFor(ctx).catch(() => null);
  const { messages, input: items, metadata, tools, ...params } = input;
  const prompt = JSON.stringify(messages ?? items ?? "");
  const strings = (o: unknown): Record<string, string> =>
    Object.fromEntries(Object.entries((o as Json | null) ?? {}).filter(([, v]) => typeof v === "string") as [string, string][]);
  return {
    metadata: strings(metadata),
    tags: ctx.outcome.tags ?? {},
    key: { id: p.keyId ?? "", name: p.kind === "api_key" ? (p.keyName ?? "") : "" },
    plan: { id: access?.plan?.id ?? "", name: access?.plan?.name ?? "" },
    subject: p.kind === "session" ? p.subject : "",
    model: routeName,
    params: { ...params, stream: input.stream ?? false },
    has_images: IMAGE_PART.test(prompt),
    has_tools: Array.isArray(tools) && tools.length > 0,
    prompt_tokens: BigInt(Math.ceil(prompt.length / 4)),
  };
}

/**
 * A routed call as the pipeline runs any model call: a ModelCall admitted for the dearest target,
 * whose run tries the targets. Or the service's own answer when it answers without a model call.
 */
export async function routedCall(op: AnyOperation, ctx: CallContext<Principal>, input: Json, route: LoadedRoute, region: string | null): Promise<unknown> {
  const name = route.definition.name;
  listenForCoolDowns();
  // The caller's region: its x-gateway-region header, else its plan's (only for a route that prefers it).
  if (route.definition.prefer_region && !region) region = (await accessFor(ctx).catch(() => null))?.plan?.region ?? null;
  const routes = routesNow() ?? (await allRoutes());
  const [health, catalog] = await Promise.all([targetHealth(region), getCatalog()]);
  const needsFacts = route.conditions.length > 0;
  const facts = needsFacts ? await factsOf(ctx, input, name) : null;
  // Each model's call, made by the operation's service as if called directly (validated, priced); a target it refuses is left out.
  const calls = new Map<string, ModelCall<unknown> | GatewayError>();
  const callFor = async (model: string) => {
    if (!calls.has(model)) {
      try {
        const made = await op.handler(ctx, { ...input, model });
        if (!(made instanceof ModelCall)) return made;
        calls.set(model, made);
      } catch (err) {
        if (!(err instanceof GatewayError)) throw err;
        calls.set(model, err);
      }
    }
    return calls.get(model);
  };
  // Plan once to learn the models the route can reach, make their calls (their prices rank lowest-cost), then plan for real.
  const reach = planRoute(route, { routes, workspaceId: ctx.principal.workspaceId, facts: () => facts!, healthy: () => true, price: () => null });
  for (const c of reach.candidates) {
    const made = await callFor(c.model);
    if (made !== undefined && !(made instanceof ModelCall) && !(made instanceof GatewayError)) return made;
  }
  const price = (model: string): Money | null => {
    const made = calls.get(model);
    return made instanceof ModelCall ? made.spec.maxCost : null;
  };
  const plan = planRoute(route, { routes, workspaceId: ctx.principal.workspaceId, facts: () => facts!, healthy: health.healthy, inRegion: health.inRegion, price });
  const usable = plan.candidates.filter((c) => calls.get(c.model) instanceof ModelCall);
  if (!usable.length) {
    const refusal = plan.candidates.map((c) => calls.get(c.model)).find((m) => m instanceof GatewayError);
    throw refusal ?? new GatewayError({ status: 503, code: "no_available_node", type: "server_error", message: `No target of the route \`${name}\` can serve this call right now.` });
  }
  const specs = usable.map((c) => (calls.get(c.model) as ModelCall<unknown>).spec);
  const dearest = specs.reduce((a, b) => (b.maxCost.gt(a.maxCost) ? b : a));
  const tokens = Math.max(...specs.map((s) => s.tokens ?? 0));
  const outcome: RoutingOutcome = { route: plan.policy.name, target: null, attempts: [] };
  ctx.outcome.routing = outcome;
  // The caller is admitted for the name it called: a plan's or a key's model list names the route.
  return new ModelCall({ ...dearest, model: name, tokens }, (metering) =>
    attempt(ctx, usable, plan.policy, outcome, (c) => calls.get(c.model) as ModelCall<unknown>, (c) => catalog.byId.get(c.model)?.row.contextLength ?? 0, metering),
  );
}

async function attempt(
  ctx: CallContext<Principal>,
  candidates: Candidate[],
  policy: LoadedRoute["definition"],
  outcome: RoutingOutcome,
  callOf: (c: Candidate) => ModelCall<unknown>,
  contextOf: (c: Candidate) => number,
  metering: Parameters<ModelCall<unknown>["run"]>[0],
): Promise<unknown> {
  const retry = policy.retry ?? { attempts: candidates.length, backoff_ms: 0, on: ["429", "5xx", "timeout"] as RetryOn[] };
  const queue = [...candidates];
  /** Targets that were rate limited with a Retry-After the route will wait for, tried again only once the others are spent. */
  const later: { c: Candidate; at: number }[] = [];
  const m = metrics();
  let lastError: unknown;
  while (outcome.attempts.length < retry.attempts) {
    let c = queue.shift();
    if (!c) {
      const next = later.shift();
      if (!next) break;
      c = next.c;
      await sleep(Math.max(0, next.at - Date.now()));
    }
    const scope: AttemptScope = { node: c.node, firstByteTimeoutMs: c.firstByteTimeoutMs };
    const timer = c.timeoutMs ? new AbortController() : null;
    const timeout = timer && setTimeout(() => timer.abort(), c.timeoutMs);
    if (timer) scope.signal = timer.signal;
    const started = performance.now();
    const done = startAttempt(c.key);
    try {
      // The modalities hand the attempt to the node router (its pinned node and timeouts); a
      // background response's later call keeps the attempt that answered.
      ctx.attempt = scope;
      const answer = await callOf(c).run(metering);
      const ms = performance.now() - started;
      recordLatency(c.key, ms);
      const node = scope.served?.name ?? c.node ?? null;
      outcome.attempts.push({ model: c.model, node, status: 200, error: null, ms: Math.round(ms) });
      outcome.target = { model: c.model, node };
      m.routeCalls.inc({ route: label(outcome.route), target: label(c.key), outcome: "ok" });
      return answer;
    } catch (err) {
      const ms = performance.now() - started;
      lastError = err;
      const kind = failureKind(err);
      const e = err instanceof GatewayError ? err : null;
      outcome.attempts.push({ model: c.model, node: scope.served?.name ?? c.node ?? null, status: e?.status ?? 500, error: e?.code ?? "internal_error", ms: Math.round(ms) } satisfies RouteAttempt);
      m.routeCalls.inc({ route: label(outcome.route), target: label(c.key), outcome: kind ?? "error" });
      if (!kind || !retry.on.includes(kind)) throw err;
      if (kind === "5xx" || kind === "timeout") recordLatency(c.key, Math.max(ms, 1000)); // a failing target is not the fastest
      if (kind === "429") {
        const wait = retryAfterMs(err);
        if (wait !== null) {
          await coolDown(c.key, Date.now() + wait);
          if (wait <= policy.max_wait_ms && !later.some((l) => l.c.key === c.key)) later.push({ c, at: Date.now() + wait });
        }
      }
      if (kind === "context_length") {
        // Only models with a larger context than the one that refused can take the prompt.
        const needed = contextOf(c);
        for (let i = queue.length - 1; i >= 0; i--) if (contextOf(queue[i]!) <= needed) queue.splice(i, 1);
      }
      const backoff = retry.backoff_ms * 2 ** (outcome.attempts.length - 1) * (0.5 + Math.random() / 2);
      if (backoff > 0 && (queue.length || later.length)) await sleep(backoff);
    } finally {
      done();
      if (timeout) clearTimeout(timeout);
    }
  }
  throw lastError;
}
