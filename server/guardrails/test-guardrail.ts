// `guardrail test`: one guardrail run on a text as a call's input (its output, for one that checks
// only outputs), without calling a model: the verdict, the rule, and the text as redacted.
import type { GuardrailVerdict } from "../kernel/call-outcome";
import { db } from "../infra/db/client";
import { GatewayError } from "../kernel/errors";
import { compiledGuardrail } from "./compile";
import { GLOBAL_SCOPE, visible } from "./guardrail-store";
import { runGuardrails } from "./run-guardrails";

export type GuardrailTest = { guardrail: string; stage: "input" | "output"; verdict: GuardrailVerdict["outcome"]; rule: string | null; text: string; ms: number; error?: string; message?: string };

export async function testGuardrail(workspaceId: string | null, name: string, text: string): Promise<GuardrailTest> {
  const g = compiledGuardrail(await visible(db, workspaceId, name));
  const stage = g.input ? "input" : "output";
  const verdicts: GuardrailVerdict[] = [];
  let out = text;
  let message: string | undefined;
  try {
    out = (await runGuardrails([g], stage, [text], { stage, requestId: "test", workspaceId: workspaceId ?? GLOBAL_SCOPE, model: null }, verdicts))[0] ?? text;
  } catch (err) {
    if (!(err instanceof GatewayError) || err.code !== "guardrail_blocked") throw err;
    message = err.message;
  }
  const v = verdicts[0]!;
  return { guardrail: name, stage, verdict: v.outcome, rule: v.rule, text: out, ms: v.ms, ...(v.error ? { error: v.error } : {}), ...(message ? { message } : {}) };
}
