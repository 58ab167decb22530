// A stored guardrail made ready to run, once per load of the workspace's rules (compiled guardrails
// are kept beside the row object the rules cache holds, so a reload compiles again): its type's
// check over a list of texts, synchronous for the built-in detectors (pii, deny, injection's
// heuristics, schema) and a promise for those that ask a model or a service.
import { moderateTexts } from "../inference/moderations/create-moderation";
import type { GuardrailRow } from "../identity/plans/plan-cache";
import { open } from "../infra/secret-box";
import { compileDenyList, findDenied } from "./detectors/deny";
import { findInjection } from "./detectors/injection";
import { checkWithService, flaggedCategory, type HttpGuardContext } from "./detectors/http-guard";
import { findPii, type PiiKind } from "./detectors/pii";
import type { CheckResult, TextFinding } from "./finding";
import { ZGuardrailDefinition, type GuardAction, type GuardrailDefinition, type GuardrailType } from "./guardrail-schema";

/** What a check knows of the call (an outside service is told). */
export type CheckContext = Omit<HttpGuardContext, "guardrail">;

export type CompiledGuardrail = {
  name: string;
  type: GuardrailType;
  action: GuardAction;
  onError: "allow" | "block";
  timeoutMs: number;
  input: boolean;
  output: boolean;
  check: (texts: string[], ctx: CheckContext) => CheckResult | Promise<CheckResult>;
};

const perText = (texts: string[], find: (text: string) => Omit<TextFinding, "index">[]): CheckResult => ({
  findings: texts.flatMap((text, index) => (text ? find(text).map((f) => ({ ...f, index })) : [])),
});

/** Flags each text a moderation model (of the catalog, as the guardrail's workspace sees it) flags, at the guardrail's thresholds. */
function moderationCheck(model: string, workspaceId: string | null, thresholds: Record<string, number> | undefined, timeoutMs: number) {
  return async (texts: string[]): Promise<CheckResult> => {
    const sent = texts.map((t, index) => ({ t, index })).filter((x) => x.t.trim());
    if (!sent.length) return { findings: [] };
    const results = await moderateTexts(model, workspaceId, sent.map((x) => x.t), AbortSignal.timeout(timeoutMs));
    const findings = results.flatMap((r, i) => {
      const category = flaggedCategory(r, thresholds);
      return category ? [{ index: sent[i]!.index, rule: category, start: 0, end: 0 }] : [];
    });
    return { findings };
  };
}

function checkOf(def: GuardrailDefinition, secret: string | null, workspaceId: string | null): CompiledGuardrail["check"] {
  const redact = def.action === "redact";
  switch (def.type) {
    case "pii": {
      const kinds = def.entities ? new Set(def.entities as PiiKind[]) : undefined;
      return (texts) => perText(texts, (t) => findPii(t, kinds).map((f) => ({ rule: f.kind, start: f.start, end: f.end, replacement: redact ? f.placeholder : undefined })));
    }
    case "deny": {
      const list = compileDenyList(def.patterns ?? [], def.words ?? []);
      return (texts) => perText(texts, (t) => findDenied(list, t, redact ? "[DENIED]" : undefined));
    }
    case "injection": {
      const classify = def.model ? moderationCheck(def.model, workspaceId, undefined, def.timeout_ms) : null;
      const heuristics = (texts: string[]) => perText(texts, (t) => findInjection(t).map((f) => ({ rule: f.rule, start: f.start, end: f.end })));
      if (!classify) return heuristics;
      return async (texts) => {
        const found = heuristics(texts);
        return found.findings.length ? found : classify(texts);
      };
    }
    case "moderation":
      return moderationCheck(def.model!, workspaceId, def.thresholds, def.timeout_ms);
    case "schema": {
      const schema = import("./detectors/json-schema").then((m) => ({ check: m.checkJson, validate: m.compileSchema(def.schema!) }));
      return async (texts) => {
        const { check, validate } = await schema;
        if (typeof validate === "string") throw new Error(`the guardrail's schema does not compile: ${validate}`);
        return perText([texts.join("")], (t) => check(validate, t));
      };
    }
    case "http": {
      const config = { url: def.url!, adapter: def.adapter ?? "gateway", anonymizerUrl: def.anonymizer_url, secret: secret ? open(secret) : null, timeoutMs: def.timeout_ms, thresholds: def.thresholds };
      return (texts, ctx) => checkWithService(texts, config, { ...ctx, guardrail: def.name });
    }
  }
}

const compiled = new WeakMap<GuardrailRow, CompiledGuardrail>();

/** The row's guardrail, ready to run. A definition that no longer parses runs as a check that fails (its on_error decides, block by default). */
export function compiledGuardrail(row: GuardrailRow): CompiledGuardrail {
  let c = compiled.get(row);
  if (!c) {
    const parsed = ZGuardrailDefinition.safeParse(row.definition);
    c = parsed.success
      ? {
          name: row.name,
          type: parsed.data.type,
          action: parsed.data.action,
          onError: parsed.data.on_error,
          timeoutMs: parsed.data.timeout_ms,
          input: parsed.data.stage !== "output",
          output: parsed.data.stage !== "input",
          check: checkOf(parsed.data, row.secret, row.scope === "*" ? null : row.scope),
        }
      : { name: row.name, type: "deny", action: "block", onError: "block", timeoutMs: 1, input: true, output: true, check: () => Promise.reject(new Error("the guardrail's stored definition is not valid")) };
    compiled.set(row, c);
  }
  return c;
}
