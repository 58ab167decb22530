// The `http` guardrail: an outside guard service, reached through the outbound guard (the
// operator's policy on tenant-chosen URLs) within the guardrail's timeout. Three shapes:
//   gateway            POST {url} {guardrail, stage, request_id, workspace_id, model, texts[]},
//                      signed like a webhook (x-gateway-signature: t=..,v1=HMAC-SHA256 of "t.body");
//                      answers {verdict: "allow" | "block" | "redact", reasons?: string[],
//                      texts?: string[] (the texts as redacted, one per text sent)}
//   presidio           Presidio's analyzer, POST {url}/analyze {text, language} -> [{entity_type,
//                      start, end, score}] per text; with `anonymizer_url`, its POST /anonymize
//                      {text, analyzer_results} -> {text} makes the redacted text
//   openai-moderation  POST {url} {input: texts[]} -> {results: [{flagged, category_scores}]}
// A service that cannot be reached, times out or answers otherwise throws: `on_error` decides.
import { signatureHeader, SIGNATURE_HEADER } from "../../alerts/signature";
import { guardedFetch } from "../../infra/net/outbound-guard";
import type { HttpAdapter } from "../guardrail-schema";
import type { CheckResult } from "../finding";

export type HttpGuardConfig = { url: string; adapter: HttpAdapter; anonymizerUrl?: string; secret: string | null; timeoutMs: number; thresholds?: Record<string, number> };
export type HttpGuardContext = { guardrail: string; stage: "input" | "output"; requestId: string; workspaceId: string; model: string | null };

class GuardServiceError extends Error {}

async function postJson(url: string, body: unknown, config: HttpGuardConfig, signal: AbortSignal): Promise<unknown> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (config.secret) headers[SIGNATURE_HEADER] = signatureHeader(text, config.secret);
  const res = await guardedFetch(url, { method: "POST", headers, body: text, signal });
  if (!res.ok) throw new GuardServiceError(`the guard service answered ${res.status}`);
  try {
    return await res.json();
  } catch {
    throw new GuardServiceError("the guard service's answer is not JSON");
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

async function gateway(texts: string[], config: HttpGuardConfig, ctx: HttpGuardContext, signal: AbortSignal): Promise<CheckResult> {
  const answer = await postJson(config.url, { guardrail: ctx.guardrail, stage: ctx.stage, request_id: ctx.requestId, workspace_id: ctx.workspaceId, model: ctx.model, texts }, config, signal);
  if (!isRecord(answer) || !["allow", "block", "redact"].includes(String(answer.verdict))) throw new GuardServiceError("the guard service's answer has no verdict (allow, block or redact)");
  const reason = Array.isArray(answer.reasons) && answer.reasons.length ? String(answer.reasons[0]).slice(0, 200) : answer.verdict === "allow" ? "" : "verdict";
  if (answer.verdict === "allow") return { findings: [] };
  if (answer.verdict === "block") return { findings: [{ index: 0, rule: reason, start: 0, end: 0 }] };
  const redacted = answer.texts;
  if (!Array.isArray(redacted) || redacted.length !== texts.length || redacted.some((t) => typeof t !== "string")) {
    throw new GuardServiceError("a redact verdict needs `texts`, one string per text sent");
  }
  const replaced = redacted as string[];
  const findings = texts.flatMap((t, index) => (replaced[index] !== t ? [{ index, rule: reason, start: 0, end: 0 }] : []));
  return { findings, replaced };
}

type PresidioResult = { entity_type: string; start: number; end: number; score?: number };

async function presidio(texts: string[], config: HttpGuardConfig, signal: AbortSignal): Promise<CheckResult> {
  const analyzer = config.url.replace(/\/+$/, "");
  const findings: CheckResult["findings"] = [];
  const replaced: (string | undefined)[] = [];
  for (const [index, text] of texts.entries()) {
    if (!text.trim()) continue;
    const results = await postJson(`${analyzer}/analyze`, { text, language: "en" }, config, signal);
    if (!Array.isArray(results)) throw new GuardServiceError("Presidio's analyzer did not answer a list");
    const found = (results as PresidioResult[]).filter((r) => Number.isInteger(r.start) && Number.isInteger(r.end) && r.end > r.start && r.end <= text.length);
    for (const r of found) findings.push({ index, rule: String(r.entity_type).toLowerCase(), start: r.start, end: r.end, replacement: `[${String(r.entity_type).toUpperCase()}]` });
    if (found.length && config.anonymizerUrl) {
      const out = await postJson(`${config.anonymizerUrl.replace(/\/+$/, "")}/anonymize`, { text, analyzer_results: found }, config, signal);
      if (!isRecord(out) || typeof out.text !== "string") throw new GuardServiceError("Presidio's anonymizer answered no text");
      replaced[index] = out.text;
    }
  }
  return config.anonymizerUrl ? { findings, replaced: texts.map((t, i) => replaced[i] ?? t) } : { findings };
}

async function moderation(texts: string[], config: HttpGuardConfig, signal: AbortSignal): Promise<CheckResult> {
  const answer = await postJson(config.url, { input: texts }, config, signal);
  const results = isRecord(answer) && Array.isArray(answer.results) ? (answer.results as unknown[]) : null;
  if (!results || results.length !== texts.length) throw new GuardServiceError("the moderation endpoint answered no result per text");
  const findings: CheckResult["findings"] = [];
  results.forEach((r, index) => {
    const category = flaggedCategory(r, config.thresholds);
    if (category) findings.push({ index, rule: category, start: 0, end: 0 });
  });
  return { findings };
}

/** The first category over its threshold (or, with no thresholds, the first the result flags); null: none. */
export function flaggedCategory(result: unknown, thresholds: Record<string, number> | undefined): string | null {
  if (!isRecord(result)) throw new GuardServiceError("a moderation result is not an object");
  const scores = isRecord(result.category_scores) ? result.category_scores : {};
  if (thresholds && Object.keys(thresholds).length) {
    for (const [category, min] of Object.entries(thresholds)) {
      const score = scores[category];
      if (typeof score === "number" && score >= min) return category;
    }
    return null;
  }
  if (result.flagged !== true) return null;
  const categories = isRecord(result.categories) ? result.categories : {};
  return Object.keys(categories).find((c) => categories[c] === true) ?? "flagged";
}

export async function checkWithService(texts: string[], config: HttpGuardConfig, ctx: HttpGuardContext): Promise<CheckResult> {
  const signal = AbortSignal.timeout(config.timeoutMs);
  if (config.adapter === "presidio") return presidio(texts, config, signal);
  if (config.adapter === "openai-moderation") return moderation(texts, config, signal);
  return gateway(texts, config, ctx, signal);
}
