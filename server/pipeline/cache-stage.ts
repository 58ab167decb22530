// [cache]: the response cache's stage, between admission and the model call. A cacheable call's
// directive is read before admission (a malformed header is a 400 that reserves nothing); once
// admitted, a hit is answered from the cache and charged at the workspace's cache price with the
// original call's units, and a miss runs the call and keeps its answer. The key is scoped to the
// workspace (and a key's, a plan's or an x402 payer's own scope), never shared across them.
import type { AnyOperation } from "../contract/operation";
import { accessFor, type ModelCall } from "../admission/admit";
import { signedBy } from "../admission/x402/payment-claims";
import { workspaceRules } from "../identity/plans/plan-cache";
import type { Principal } from "../identity/principal";
import { recordCall, type Metering } from "../ledger/meter";
import type { CallContext } from "../kernel/call-context";
import { money, Money } from "../kernel/money";
import { cacheKey, notCacheable } from "../response-cache/cache-key";
import { cacheDirective, samples, type CacheHeaders } from "../response-cache/directive";
import { findEntry, type CacheEntry } from "../response-cache/entries";
import { ChargeWatch, fillFrom, type FillTarget } from "../response-cache/fill";
import { replayAnswer } from "../response-cache/replay";

/** What the stage decided before admission: the entry's place, whether to read it, and the hit price. */
export type CachePlan = { target: FillTarget; read: boolean; priceFraction: string };

/** The scope an x402 payer's calls are cached in: its wallet's own (payers are strangers to each other). */
function payerScope(p: Extract<Principal, { kind: "x402" }>): string | null {
  const signer = p.payment && signedBy(p.payment);
  return signer ? `payer:${signer.payer}` : null;
}

/**
 * The cache's plan for a call of a cached operation. Sets the call's cache status to `bypass` and
 * returns null when it is not looked up (asked so, a sampled call the workspace does not cache, a
 * stateful responses call); throws 400 for a malformed cache header.
 */
export async function planCache(op: AnyOperation, input: Record<string, unknown>, call: CallContext<Principal>, headers: CacheHeaders): Promise<CachePlan | null> {
  const why = notCacheable(op.id, input);
  const p = call.principal;
  const rules = await workspaceRules(p.workspaceId);
  const plan = p.kind === "api_key" || p.kind === "session" ? (await accessFor(call)).plan : null;
  const directive = cacheDirective(headers, rules.cache, p, plan);
  const scope = p.kind === "x402" ? payerScope(p) : directive.scope;
  if (why || directive.mode === "bypass" || scope === null || (samples(input) && !rules.cache.sampling)) {
    call.outcome.cache = "bypass";
    return null;
  }
  const target: FillTarget = {
    workspaceId: p.workspaceId,
    scope,
    hash: cacheKey(op.id, input),
    route: op.path,
    apiKeyId: p.keyId,
    ttlSeconds: directive.ttlSeconds,
    replacing: directive.mode === "refresh",
  };
  return { target, read: directive.mode === "use", priceFraction: rules.cache.priceFraction };
}

/** Each kept entry's hit price at the workspace's cache price (the fraction it was made for): hits of one entry reuse it. */
const hitPrices = new WeakMap<CacheEntry, { fraction: string; price: Money; saved: string }>();

function hitPrice(entry: CacheEntry, fraction: string): { price: Money; saved: string } {
  const known = hitPrices.get(entry);
  if (known?.fraction === fraction) return known;
  const full = money(entry.cost);
  const price = Money.min(full, full.times(fraction).toDecimalPlaces(18, Money.ROUND_HALF_EVEN));
  const made = { fraction, price, saved: full.minus(price).toString() };
  hitPrices.set(entry, made);
  return made;
}

/** Charges a hit: the original call's units, at the cache price (a fraction of what it cost); the rest is recorded as saved. */
function chargeHit(metering: Metering, entry: CacheEntry, priceFraction: string): Promise<void> {
  const { price, saved } = hitPrice(entry, priceFraction);
  const units = { inputTokens: entry.inputTokens, outputTokens: entry.outputTokens, cost: price, cacheHit: true, cacheSaved: saved };
  return recordCall(metering, { modelId: entry.modelId, nodeId: null, started: performance.now() }, units);
}

/** Runs an admitted call through the cache: a hit's answer, or the call's with its answer kept. */
export async function runCached(plan: CachePlan, modelCall: ModelCall<unknown>, metering: Metering, call: CallContext<Principal>): Promise<unknown> {
  const { target } = plan;
  const entry = plan.read ? await findEntry(target.workspaceId, target.scope, target.hash) : null;
  if (entry) {
    call.outcome.cache = "hit";
    await chargeHit(metering, entry, plan.priceFraction);
    return replayAnswer(entry.answer);
  }
  call.outcome.cache = "miss";
  const watch = new ChargeWatch(call.observer);
  call.observer = watch;
  return fillFrom(await modelCall.run(metering), target, watch);
}
