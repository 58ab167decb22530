// Fixtures for the tests of plans, rate limits and spend caps (tests/api/rate-limits.test.ts,
// tests/api/budgets.test.ts): a workspace with plans, keys on a plan, session tokens, raw chat
// calls that keep the status and headers, the exact reservation of a chat call, and a wait for a
// fresh one-minute rate window.
import { createKey } from "../server/identity/keys/create-key";
import { createPlan, type PlanFields } from "../server/identity/plans/manage-plans";
import { ZChatCompletionRequest } from "../server/inference/chat/schema";
import { db } from "../server/infra/db/client";
import { money, Money } from "../server/kernel/money";
import { maxChatCost, maxChatTokens } from "../server/routing/catalog/pricing";
import { modelInclude } from "../server/routing/catalog/model-row";
import { baseUrl } from "./helpers";
import type { ErrorBody } from "./instances";

export const CHAT = "local-chat-sim";
export const EMBED = "local-embed-ngram";

/** POST /v1/sessions with a workspace API key; throws unless 200. */
export async function mintToken(
  secret: string,
  body: { plan: string; subject: string; expires_in?: number; spend_cap?: string },
  base = baseUrl(),
): Promise<{ id: string; token: string; subject: string; plan: string; spend_cap: string | null }> {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`POST /v1/sessions answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A key of the workspace on a plan (or on none). */
export async function newKey(workspaceId: string, planId: string | null, name = "plan key"): Promise<{ id: string; secret: string }> {
  const { key, secret } = await db.$transaction((tx) => createKey(tx, { workspaceId, name, ...(planId ? { planId } : {}) }));
  return { id: key.id, secret };
}

/** A small chat request: one user message, `max_tokens` of output. */
export function chatBody(content: string, maxTokens: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: CHAT, messages: [{ role: "user", content }], max_tokens: maxTokens, ...extra };
}

export type CallResult = {
  status: number;
  headers: Headers;
  requestId: string | null;
  /** The JSON answer (a completion or an error). */
  body: any;
};

/** POST a JSON body with fetch; reads the whole answer. */
export async function post(path: string, secret: string, body: Record<string, unknown>, base = baseUrl()): Promise<CallResult> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // an SSE answer stays text
  }
  return { status: res.status, headers: res.headers, requestId: res.headers.get("x-request-id"), body: parsed };
}

export const chat = (secret: string, body: Record<string, unknown>, base = baseUrl()) => post("/v1/chat/completions", secret, body, base);

/** The x-ratelimit-* headers of an answer (absent ones left out). */
export function rateHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of ["requests", "tokens"]) {
    for (const what of ["limit", "remaining", "reset"]) {
      const name = `x-ratelimit-${what}-${kind}`;
      const v = h.get(name);
      if (v !== null) out[name] = v;
    }
  }
  return out;
}

/** Asserts the OpenAI error shape and returns the error. */
export function errorOf(r: CallResult): ErrorBody["error"] {
  const body = r.body as ErrorBody;
  if (!body || typeof body !== "object" || !body.error) throw new Error(`not an error body (${r.status}): ${JSON.stringify(r.body)}`);
  return body.error;
}

/** The catalog row of a model (prices, context length), as the gateway prices calls with it. */
export function modelRow(id: string) {
  return db.model.findUniqueOrThrow({ where: { id }, include: modelInclude });
}

/**
 * What the gateway reserves for a chat request (docs/BILLING.md): the bound from the input bytes
 * plus max_tokens at the model's prices, rounded up to the 18 places amounts are kept in; and the
 * tokens a tokens-per-minute limit counts up front for it.
 */
export async function reservationOf(body: Record<string, unknown>): Promise<{ amount: Money; tokens: number }> {
  const row = await modelRow(String(body.model));
  const req = ZChatCompletionRequest.parse(body);
  return { amount: money(maxChatCost(row, req)).toDecimalPlaces(18, Money.ROUND_UP), tokens: maxChatTokens(row, req) };
}

/** Sums decimal strings (or Decimals) exactly. */
export const sum = (values: { toString(): string }[]): Money => values.reduce<Money>((acc, v) => acc.plus(money(v)), money(0));

/** Plans, as createPlan takes them (a wrapper that keeps the tests short). */
export const plan = (workspaceId: string, fields: PlanFields) => createPlan(workspaceId, fields);

const MINUTE = 60_000;

/**
 * Rate limits count in fixed one-minute UTC windows: waits, if need be, for the next minute so
 * that at least `neededMs` of the current window are left. Returns the window's start (ms).
 */
export async function freshWindow(neededMs = 10_000): Promise<number> {
  const left = MINUTE - (Date.now() % MINUTE);
  if (left < neededMs) await new Promise((r) => setTimeout(r, left + 50));
  const now = Date.now();
  return now - (now % MINUTE);
}

/** The one-minute window `at` falls in. */
export const windowOf = (at = Date.now()) => at - (at % MINUTE);
