// The guardrails' two stages of a /v1 call (pipeline/pipeline.ts runs them when the caller has
// guardrails: decided from the plan cache the call already read, so a call without any runs none
// of this). Input: after validation, before admission (a blocked call costs nothing), the texts of
// the request checked and redacted in place, so that the node, the response cache and the request
// log's capture only see them redacted. Output: the answer checked (JSON) or its stream wrapped
// (guard-stream.ts), a cached answer as a live one.
import type { GuardrailRow } from "../identity/plans/plan-cache";
import { emitAlert } from "../alerts/emit";
import { metrics } from "../infra/telemetry/metrics";
import { EventStream } from "../kernel/event-stream";
import { notePhase, type CallOutcome, type GuardrailVerdict } from "../kernel/call-outcome";
import { answerTexts, inputTexts, type GuardedText } from "./call-texts";
import { compiledGuardrail, type CheckContext, type CompiledGuardrail } from "./compile";
import { guardStream } from "./guard-stream";
import { runGuardrails } from "./run-guardrails";

export type GuardedCall = { requestId: string; workspaceId: string; model: string | null; outcome: CallOutcome };

/** The verdicts from `from` on, in the metrics; a block also as the workspace's `guardrail.blocked` alert (its webhooks). */
function report(call: GuardedCall, verdicts: readonly GuardrailVerdict[], from: number): void {
  const m = metrics().guardrailVerdicts;
  for (let i = from; i < verdicts.length; i++) {
    const v = verdicts[i]!;
    m.inc({ type: v.type, stage: v.stage, outcome: v.outcome });
    if (v.outcome === "blocked" || v.blocked) {
      emitAlert(call.workspaceId, "guardrail.blocked", `guardrail.blocked:${call.requestId}`, { request_id: call.requestId, guardrail: v.guardrail, type: v.type, stage: v.stage, rule: v.rule, model: call.model });
    }
  }
}

const guardsOf = (rows: readonly GuardrailRow[], stage: "input" | "output"): CompiledGuardrail[] => rows.map(compiledGuardrail).filter((g) => g[stage]);

const contextOf = (call: GuardedCall, stage: "input" | "output"): CheckContext => ({
  stage,
  requestId: call.requestId,
  workspaceId: call.workspaceId,
  model: call.model,
});

/** Checks the input's texts; redacts them in place. Returns whether any was redacted; throws 400 guardrail_blocked. */
export async function guardInput(rows: readonly GuardrailRow[], kind: GuardedText, input: Record<string, unknown>, call: GuardedCall): Promise<boolean> {
  const guards = guardsOf(rows, "input");
  if (!guards.length) return false;
  const verdicts = (call.outcome.guardrails ??= []);
  const from = verdicts.length;
  const started = performance.now();
  const slots = inputTexts(kind, input);
  const texts = slots.map((s) => s.text);
  try {
    const out = await runGuardrails(guards, "input", texts, contextOf(call, "input"), verdicts);
    if (out === texts) return false;
    out.forEach((t, i) => t !== texts[i] && slots[i]!.set(t));
    return true;
  } finally {
    notePhase(call.outcome, "guardrails_input", started);
    report(call, verdicts, from);
  }
}

/** The answer as the output guardrails let it out: a JSON answer checked (and redacted), a stream wrapped. */
export async function guardAnswer(rows: readonly GuardrailRow[], answer: unknown, call: GuardedCall): Promise<unknown> {
  const guards = guardsOf(rows, "output");
  if (!guards.length) return answer;
  const verdicts = (call.outcome.guardrails ??= []);
  const ctx = contextOf(call, "output");
  if (answer instanceof EventStream) {
    const counted = verdicts.length;
    const events = guardStream(answer.events, guards, ctx, verdicts);
    return new EventStream(counting(call, events, verdicts, counted), answer.options);
  }
  if (isStream(answer)) return counting(call, guardStream(answer, guards, ctx, verdicts), verdicts, verdicts.length);
  const slots = answerTexts(answer);
  if (!slots.length) return answer;
  const from = verdicts.length;
  const started = performance.now();
  const texts = slots.map((s) => s.text);
  try {
    const out = await runGuardrails(guards, "output", texts, ctx, verdicts, true);
    if (out.every((t, i) => t === texts[i])) return answer;
    // Redacted in a copy: the answer itself may be the response cache's, shared with callers
    // whose guardrails differ (a hit's, or a miss's on its way to the cache).
    const copy = structuredClone(answer);
    const copied = answerTexts(copy);
    out.forEach((t, i) => t !== texts[i] && copied[i]!.set(t));
    return copy;
  } finally {
    notePhase(call.outcome, "guardrails_output", started);
    report(call, verdicts, from);
  }
}

const isStream = (v: unknown): v is AsyncIterable<string> => typeof v === "object" && v !== null && Symbol.asyncIterator in v && !(v instanceof Uint8Array);

/** The stream, its verdicts reported once it ends (or fails). */
function counting(call: GuardedCall, events: AsyncIterable<string>, verdicts: readonly GuardrailVerdict[], from: number): AsyncIterable<string> {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        yield* events;
      } finally {
        report(call, verdicts, from);
      }
    },
  };
}
