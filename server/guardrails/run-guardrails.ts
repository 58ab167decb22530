// Runs a call's guardrails over a list of texts at one stage, in their order: each sees the texts
// as the ones before it left them (redacted). A block throws 400 `guardrail_blocked` naming the
// guardrail and its rule; a check that fails or outlasts its timeout is allowed or blocks, as its
// `on_error` says. Every guardrail that ran leaves a verdict.
import type { GuardrailVerdict } from "../kernel/call-outcome";
import { GatewayError } from "../kernel/errors";
import type { CheckContext, CompiledGuardrail } from "./compile";
import { applyFindings, disjoint, type CheckResult, type TextFinding } from "./finding";

export type Stage = "input" | "output";

/** A call (or its answer) refused by a guardrail: 400, the guardrail and its rule named. */
export function blockedError(guardrail: string, rule: string | null, stage: Stage, billed = false): GatewayError {
  const why = rule ? ` (rule: ${rule})` : "";
  const what = stage === "input" ? "The request was blocked" : "The model's answer was blocked";
  const bill = stage === "output" ? (billed ? " What the model produced was billed." : "") : " Nothing was billed.";
  return new GatewayError({ status: 400, code: "guardrail_blocked", param: null, message: `${what} by the guardrail \`${guardrail}\`${why}.${bill}` });
}

class CheckTimeout extends Error {
  constructor(ms: number) {
    super(`the check took longer than its timeout of ${ms} ms`);
  }
}

function withTimeout(p: Promise<CheckResult>, ms: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(ms)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** One guardrail's check of the texts within its timeout; throws what failed it. */
export async function checkWithin(g: CompiledGuardrail, texts: string[], ctx: CheckContext): Promise<CheckResult> {
  const checked = g.check(texts, ctx);
  return checked instanceof Promise ? withTimeout(checked, g.timeoutMs) : checked;
}

export const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

/** The texts with the findings (or the service's own redaction) applied. */
function redacted(texts: string[], result: CheckResult): string[] {
  if (result.replaced) return texts.map((t, i) => result.replaced![i] ?? t);
  const byText = new Map<number, TextFinding[]>();
  for (const f of result.findings) (byText.get(f.index) ?? byText.set(f.index, []).get(f.index)!).push(f);
  return texts.map((t, i) => {
    const found = byText.get(i);
    return found ? applyFindings(t, disjoint(found)) : t;
  });
}

/**
 * Runs the guardrails of `stage` over the texts; returns them as redacted (the same array when
 * nothing was). Verdicts go to `verdicts`; a block throws (`billed`: an answer's cost was charged).
 */
export async function runGuardrails(
  guards: readonly CompiledGuardrail[],
  stage: Stage,
  texts: string[],
  ctx: CheckContext,
  verdicts: GuardrailVerdict[],
  billed = false,
): Promise<string[]> {
  let out = texts;
  for (const g of guards) {
    if (!(stage === "input" ? g.input : g.output)) continue;
    const started = performance.now();
    const verdict = (outcome: GuardrailVerdict["outcome"], rule: string | null, extra?: Partial<GuardrailVerdict>) =>
      verdicts.push({ guardrail: g.name, type: g.type, stage, outcome, rule, ms: Math.round((performance.now() - started) * 1000) / 1000, ...extra });
    let result: CheckResult;
    try {
      const checked = g.check(out, ctx);
      result = checked instanceof Promise ? await withTimeout(checked, g.timeoutMs) : checked; // (no turn given up when synchronous)
    } catch (err) {
      verdict("error", null, { blocked: g.onError === "block", error: reasonOf(err) });
      if (g.onError === "block") throw blockedError(g.name, "check_failed", stage, billed);
      continue;
    }
    if (!result.findings.length) {
      verdict("passed", null);
      continue;
    }
    const rule = result.findings[0]!.rule;
    if (g.action === "flag") verdict("flagged", rule);
    else if (g.action === "redact") {
      out = redacted(out, result);
      verdict("redacted", rule);
    } else {
      verdict("blocked", rule);
      throw blockedError(g.name, rule, stage, billed);
    }
  }
  return out;
}
