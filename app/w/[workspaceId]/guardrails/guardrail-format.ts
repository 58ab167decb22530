// Display and form helpers of guardrails: a guardrail's options in one short phrase each, where it
// is attached (plans and keys named when the workspace still has them), the editor's form values
// to a definition and back, and a test verdict's colour.
import type { GuardrailView } from "@/server/guardrails/guardrail-store";
import type { GuardrailTest } from "@/server/guardrails/test-guardrail";
import type { GuardAction, GuardrailType, Stage } from "@/server/guardrails/guardrail-schema";

export type PlanRef = { id: string; name: string };
export type KeyRef = { id: string; name: string; prefix: string; revokedAt: string | null };

/** What each type checks, in the type selector. */
export const TYPE_LABELS: Record<GuardrailType, string> = {
  pii: "pii: personal data and secrets",
  deny: "deny: patterns and words",
  injection: "injection: prompt injection",
  moderation: "moderation: a moderation model",
  schema: "schema: answers valid against a JSON Schema",
  http: "http: your own guard service",
};

/** The types that can say what to replace; the others block or flag. */
export const REDACTING: ReadonlySet<GuardrailType> = new Set(["pii", "deny", "http"]);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The type's options, each in a short phrase ("3 patterns", "entities: email, phone", "service guard.example.com"). */
export function describeOptions(g: GuardrailView): string[] {
  switch (g.type) {
    case "pii":
      return [g.entities?.length ? `entities: ${g.entities.join(", ")}` : "every entity kind"];
    case "deny":
      return [g.patterns?.length ? plural(g.patterns.length, "pattern") : null, g.words?.length ? plural(g.words.length, "word") : null].filter((s): s is string => s !== null);
    case "injection":
      return [g.model ? `built-in heuristics, then the classifier ${g.model}` : "built-in heuristics"];
    case "moderation":
      return [
        `model ${g.model}`,
        g.thresholds && Object.keys(g.thresholds).length
          ? `thresholds: ${Object.entries(g.thresholds)
              .map(([c, s]) => `${c} ≥ ${s}`)
              .join(", ")}`
          : "the model's own flags",
      ];
    case "schema": {
      const props = g.schema && typeof g.schema.properties === "object" && g.schema.properties ? Object.keys(g.schema.properties) : [];
      return [props.length ? `JSON Schema with ${plural(props.length, "property", "properties")} (${props.slice(0, 5).join(", ")}${props.length > 5 ? ", …" : ""})` : "a JSON Schema"];
    }
    case "http":
      return [`service ${g.url ? hostOf(g.url) : "?"}`, `adapter ${g.adapter ?? "gateway"}`, ...(g.anonymizer_url ? [`anonymizer ${hostOf(g.anonymizer_url)}`] : [])];
  }
}

export type Attachment = {
  /** As stored: "workspace", "plan:<id>", "key:<id>", or "all_workspaces" (the operator's, to every workspace). */
  target: string;
  label: string;
  /** What guardrails.detach is given; null: not the workspace's to detach (the operator's attachment). */
  detach: { plan?: string; key?: string } | null;
};

/** One attachment as the page shows it: a plan or key by name when the workspace still has it, else by id. */
export function attachmentOf(target: string, plans: readonly PlanRef[], keys: readonly KeyRef[]): Attachment {
  if (target === "workspace") return { target, label: "workspace", detach: {} };
  if (target === "all_workspaces") return { target, label: "every workspace (the operator's)", detach: null };
  if (target.startsWith("plan:")) {
    const id = target.slice(5);
    const plan = plans.find((p) => p.id === id);
    return { target, label: `plan ${plan ? plan.name : id}`, detach: { plan: id } };
  }
  if (target.startsWith("key:")) {
    const id = target.slice(4);
    const key = keys.find((k) => k.id === id);
    return { target, label: key ? `key ${key.name} (${key.prefix}…)${key.revokedAt ? " — revoked" : ""}` : `key ${id}`, detach: { key: id } };
  }
  return { target, label: target, detach: null };
}

/** What can still be attached to: the workspace, its plans, its live keys (less what the guardrail is attached to). */
export function attachChoices(attached: readonly string[], plans: readonly PlanRef[], keys: readonly KeyRef[]) {
  const free = (t: string) => !attached.includes(t);
  return {
    workspace: free("workspace"),
    plans: plans.filter((p) => free(`plan:${p.id}`)),
    keys: keys.filter((k) => !k.revokedAt && free(`key:${k.id}`)),
  };
}

/** A choice of the attach selector ("workspace", "plan:<id>", "key:<id>") as guardrails.attach's target. */
export function attachTarget(choice: string): { plan?: string; key?: string } {
  if (choice.startsWith("plan:")) return { plan: choice.slice(5) };
  if (choice.startsWith("key:")) return { key: choice.slice(4) };
  return {};
}

export const VERDICT_TONE: Record<GuardrailTest["verdict"], "green" | "red" | "amber" | "indigo"> = {
  passed: "green",
  redacted: "indigo",
  flagged: "amber",
  blocked: "red",
  error: "red",
};

/** The editor's fields as typed: lists one item a line, thresholds `category=score` a line, the schema as JSON text. */
export type FormValues = {
  name: string;
  description: string;
  type: GuardrailType;
  stage: Stage;
  action: GuardAction;
  on_error: "allow" | "block";
  timeout_ms: string;
  entities: string[];
  patterns: string;
  words: string;
  model: string;
  thresholds: string;
  schema: string;
  url: string;
  adapter: string;
  anonymizer_url: string;
};

export const NEW_GUARDRAIL: FormValues = {
  name: "",
  description: "",
  type: "pii",
  stage: "input",
  action: "redact",
  on_error: "allow",
  timeout_ms: "1000",
  entities: [],
  patterns: "",
  words: "",
  model: "",
  thresholds: "",
  schema: "",
  url: "",
  adapter: "",
  anonymizer_url: "",
};

/** A listed guardrail in the editor's fields (to edit it, or to override the operator's in this workspace). */
export function formValuesOf(g: GuardrailView): FormValues {
  return {
    name: g.name,
    description: g.description ?? "",
    type: g.type,
    stage: g.stage,
    action: g.action,
    on_error: g.on_error,
    timeout_ms: String(g.timeout_ms),
    entities: g.entities ?? [],
    patterns: (g.patterns ?? []).join("\n"),
    words: (g.words ?? []).join("\n"),
    model: g.model ?? "",
    thresholds: Object.entries(g.thresholds ?? {})
      .map(([c, s]) => `${c}=${s}`)
      .join("\n"),
    schema: g.schema ? JSON.stringify(g.schema, null, 2) : "",
    url: g.url ?? "",
    adapter: g.adapter ?? "",
    anonymizer_url: g.anonymizer_url ?? "",
  };
}

/** A textarea's lines, without the blank ones. */
const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== "");

/**
 * The definition guardrails.add is sent: the common fields, and only the options of the chosen
 * type (the others' fields keep what was typed, unsent). Only what cannot be sent at all is refused
 * here (a schema that is not JSON, a threshold line without a score); the server checks the rest.
 */
export function definitionOf(v: FormValues): { definition: Record<string, unknown> } | { error: string } {
  const timeout = Number(v.timeout_ms);
  if (v.timeout_ms.trim() === "" || !Number.isFinite(timeout)) return { error: "The timeout is a whole number of milliseconds (1 to 30000)." };
  const def: Record<string, unknown> = { name: v.name.trim(), type: v.type, stage: v.stage, action: v.action, on_error: v.on_error, timeout_ms: timeout };
  if (v.description.trim()) def.description = v.description.trim();
  const model = v.model.trim();
  switch (v.type) {
    case "pii":
      if (v.entities.length) def.entities = v.entities;
      break;
    case "deny": {
      const patterns = lines(v.patterns);
      const words = lines(v.words).map((w) => w.trim());
      if (patterns.length) def.patterns = patterns;
      if (words.length) def.words = words;
      break;
    }
    case "injection":
      if (model) def.model = model;
      break;
    case "moderation": {
      if (model) def.model = model;
      const thresholds: Record<string, number> = {};
      for (const [i, line] of lines(v.thresholds).entries()) {
        const m = /^\s*([^=\s][^=]*?)\s*=\s*([0-9.]+)\s*$/.exec(line);
        if (!m || !Number.isFinite(Number(m[2]))) return { error: `Thresholds, line ${i + 1}: write category=score, a score from 0 to 1 (e.g. violence=0.5).` };
        thresholds[m[1]!] = Number(m[2]);
      }
      if (Object.keys(thresholds).length) def.thresholds = thresholds;
      break;
    }
    case "schema":
      if (v.schema.trim()) {
        try {
          def.schema = JSON.parse(v.schema);
        } catch (err) {
          return { error: `The schema is not valid JSON: ${(err as Error).message}` };
        }
      }
      break;
    case "http":
      if (v.url.trim()) def.url = v.url.trim();
      if (v.adapter) def.adapter = v.adapter;
      if (v.adapter === "presidio" && v.anonymizer_url.trim()) def.anonymizer_url = v.anonymizer_url.trim();
      break;
  }
  return { definition: def };
}
