// Guardrails (docs/GUARDRAILS.md): a workspace's own, or the operator's (--global), which any
// workspace may attach and the operator attaches to every workspace.
import { readFileSync } from "node:fs";
import { cliActor } from "../../server/audit/actor";
import { addGuardrail, attachGuardrail, listGuardrails, removeGuardrail, showGuardrail, type GuardrailView } from "../../server/guardrails/guardrail-store";
import { testGuardrail } from "../../server/guardrails/test-guardrail";
import { parseScoped as scoped, UsageError, type Command } from "./args";
import { requireWorkspace } from "./require-workspace";

const where = (workspaceId: string | null) => async () => {
  if (workspaceId) await requireWorkspace(workspaceId);
};

const line = (g: GuardrailView) =>
  `${g.name}  ${g.type} ${g.stage} ${g.action} (on error: ${g.on_error})${g.scope === "global" ? "  (gateway-wide)" : ""}${g.attached_to.length ? `  attached to ${g.attached_to.join(", ")}` : "  not attached"}`;

function number(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${flag} must be a whole number`);
  return n;
}

function thresholds(values: string[] | undefined): Record<string, number> | undefined {
  if (!values?.length) return undefined;
  const out: Record<string, number> = {};
  for (const v of values) {
    const [category, score] = v.split("=");
    if (!category || score === undefined || !Number.isFinite(Number(score))) throw new UsageError(`--threshold takes CATEGORY=SCORE (0..1), not ${v}`);
    out[category] = Number(score);
  }
  return out;
}

function schemaFile(path: string | undefined): unknown {
  if (!path) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new UsageError(`--schema ${path}: ${(err as Error).message}`);
  }
}

const ADD_OPTIONS = {
  name: { type: "string" },
  type: { type: "string" },
  stage: { type: "string" },
  action: { type: "string" },
  "on-error": { type: "string" },
  "timeout-ms": { type: "string" },
  description: { type: "string" },
  pattern: { type: "string", multiple: true },
  word: { type: "string", multiple: true },
  entity: { type: "string", multiple: true },
  model: { type: "string" },
  threshold: { type: "string", multiple: true },
  url: { type: "string" },
  adapter: { type: "string" },
  "anonymizer-url": { type: "string" },
  schema: { type: "string" },
} as const;

export const guardrailCommands: Record<string, Command> = {
  "guardrail add": (argv) => {
    const { values: v, workspaceId } = scoped(argv, ADD_OPTIONS, []);
    const definition = Object.fromEntries(
      Object.entries({
        name: v.name,
        description: v.description,
        type: v.type,
        stage: v.stage,
        action: v.action,
        on_error: v["on-error"],
        timeout_ms: number(v["timeout-ms"], "timeout-ms"),
        entities: v.entity,
        patterns: v.pattern,
        words: v.word,
        model: v.model,
        thresholds: thresholds(v.threshold),
        schema: schemaFile(v.schema),
        url: v.url,
        adapter: v.adapter,
        anonymizer_url: v["anonymizer-url"],
      }).filter(([, value]) => value !== undefined),
    );
    return async () => {
      await where(workspaceId)();
      const json = await addGuardrail(workspaceId, definition, cliActor());
      const secret = json.signing_secret ? `\nSigning secret (shown once): ${json.signing_secret}` : "";
      return { json, text: `Guardrail ${line(json)}${secret}`, asJson: v.json };
    };
  },
  "guardrail attach": (argv) => {
    const { values, args, workspaceId } = scoped(argv, { plan: { type: "string" }, key: { type: "string" } }, ["NAME"]);
    return async () => {
      await where(workspaceId)();
      const json = await attachGuardrail(workspaceId, args[0]!, { plan: values.plan, key: values.key }, cliActor());
      return { json, text: `Guardrail ${line(json)}`, asJson: values.json };
    };
  },
  "guardrail detach": (argv) => {
    const { values, args, workspaceId } = scoped(argv, { plan: { type: "string" }, key: { type: "string" } }, ["NAME"]);
    return async () => {
      await where(workspaceId)();
      const json = await attachGuardrail(workspaceId, args[0]!, { plan: values.plan, key: values.key }, cliActor(), true);
      return { json, text: `Guardrail ${line(json)}`, asJson: values.json };
    };
  },
  "guardrail list": (argv) => {
    const { values, workspaceId } = scoped(argv, {}, []);
    return async () => {
      await where(workspaceId)();
      const data = await listGuardrails(workspaceId);
      return { json: { object: "list", data }, text: data.length ? data.map(line).join("\n") : "No guardrails.", asJson: values.json };
    };
  },
  "guardrail show": (argv) => {
    const { values, args, workspaceId } = scoped(argv, {}, ["NAME"]);
    return async () => {
      await where(workspaceId)();
      const json = await showGuardrail(workspaceId, args[0]!);
      return { json, text: JSON.stringify(json, null, 2), asJson: values.json };
    };
  },
  "guardrail remove": (argv) => {
    const { values, args, workspaceId } = scoped(argv, {}, ["NAME"]);
    return async () => {
      await where(workspaceId)();
      await removeGuardrail(workspaceId, args[0]!, cliActor());
      return { json: { name: args[0], deleted: true }, text: `Removed guardrail ${args[0]}.`, asJson: values.json };
    };
  },
  "guardrail test": (argv) => {
    const { values, args, workspaceId } = scoped(argv, { text: { type: "string" } }, ["NAME"]);
    if (values.text === undefined) throw new UsageError("guardrail test needs --text TEXT");
    return async () => {
      await where(workspaceId)();
      const json = await testGuardrail(workspaceId, args[0]!, values.text!);
      return { json, text: `${json.verdict}${json.rule ? ` (${json.rule})` : ""} in ${json.ms} ms: ${json.text}${json.error ? `\nerror: ${json.error}` : ""}`, asJson: values.json };
    };
  },
};
