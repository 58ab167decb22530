// What a guardrail is, as written by the CLI, tRPC and the dashboard: a named check of a `type`
// run at a `stage` (the call's input, its output, or both) that blocks, redacts or flags what it
// finds, and what to do when the check itself fails or times out. The type's options beside it.
// Validated with zod; a pattern that is not RE2 and a URL the outbound policy refuses are refused
// by the store (guardrail-store.ts) with the field named.
import { z } from "zod";
import { PII_KINDS } from "./detectors/pii";

export const GUARDRAIL_TYPES = ["pii", "deny", "injection", "moderation", "schema", "http"] as const;
export type GuardrailType = (typeof GUARDRAIL_TYPES)[number];
export const STAGES = ["input", "output", "both"] as const;
export type Stage = (typeof STAGES)[number];
export const ACTIONS = ["block", "redact", "flag"] as const;
export type GuardAction = (typeof ACTIONS)[number];
export const ON_ERROR = ["allow", "block"] as const;
/** The wire shapes an `http` guardrail speaks (http-guard.ts). */
export const HTTP_ADAPTERS = ["gateway", "presidio", "openai-moderation"] as const;
export type HttpAdapter = (typeof HTTP_ADAPTERS)[number];

/** The types that can say what to replace (the others find that a text is unwanted, not where). */
const REDACTING = new Set<GuardrailType>(["pii", "deny", "http"]);

export const ZGuardrailName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a guardrail name is letters, digits and . _ - (no spaces)");

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: (i) => `unknown ${what} "${String(i.input)}"; one of ${values.join(", ")}` });

export const ZGuardrailDefinition = z
  .object({
    name: ZGuardrailName,
    description: z.string().max(500).optional(),
    type: oneOf(GUARDRAIL_TYPES, "type"),
    stage: oneOf(STAGES, "stage"),
    action: oneOf(ACTIONS, "action"),
    on_error: oneOf(ON_ERROR, "on_error").default("allow"),
    timeout_ms: z.number().int().min(1).max(30_000).default(1000),
    /** pii: the kinds looked for (default: all). */
    entities: z.array(oneOf(PII_KINDS as unknown as [string, ...string[]], "entity")).min(1).max(PII_KINDS.length).optional(),
    /** deny: RE2 patterns, matched case-insensitively. */
    patterns: z.array(z.string().min(1).max(1000)).max(200).optional(),
    /** deny: words and phrases, matched case-insensitively on word boundaries. */
    words: z.array(z.string().trim().min(1).max(200)).max(5000).optional(),
    /** moderation: a moderation model of the catalog; injection: a classifier model (optional). */
    model: z.string().trim().min(1).max(200).optional(),
    /** moderation (and http with the openai-moderation adapter): a category's score at or above which it counts (default: the model's own `flagged`). */
    thresholds: z.record(z.string().min(1).max(100), z.number().min(0).max(1)).optional(),
    /** schema: the JSON Schema the output must be valid JSON against. */
    schema: z.record(z.string(), z.unknown()).optional(),
    /** http: the guard service's URL, and the shape it speaks. */
    url: z.string().trim().url().max(2000).optional(),
    adapter: oneOf(HTTP_ADAPTERS, "adapter").optional(),
    /** http with the presidio adapter: the anonymizer's URL (without it, the analyzer's findings are replaced by [ENTITY_TYPE]). */
    anonymizer_url: z.string().trim().url().max(2000).optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    const need = (field: keyof typeof d, why: string) => {
      if (d[field] === undefined) ctx.addIssue({ code: "custom", path: [field], message: why });
    };
    if (d.action === "redact" && !REDACTING.has(d.type)) {
      ctx.addIssue({ code: "custom", path: ["action"], message: `a ${d.type} guardrail cannot redact (it finds that a text is unwanted, not what to replace); use block or flag` });
    }
    if (d.type === "deny" && !d.patterns?.length && !d.words?.length) need("patterns", "a deny guardrail needs patterns or words");
    if (d.type === "moderation") need("model", "a moderation guardrail needs a moderation model");
    if (d.type === "schema") {
      need("schema", "a schema guardrail needs a JSON Schema");
      if (d.stage !== "output") ctx.addIssue({ code: "custom", path: ["stage"], message: "a schema guardrail checks the output: its stage is output" });
    }
    if (d.type === "http") need("url", "an http guardrail needs the guard service's url");
    const foreign: [keyof typeof d, GuardrailType[]][] = [
      ["entities", ["pii"]],
      ["patterns", ["deny"]],
      ["words", ["deny"]],
      ["model", ["moderation", "injection"]],
      ["thresholds", ["moderation", "http"]],
      ["schema", ["schema"]],
      ["url", ["http"]],
      ["adapter", ["http"]],
      ["anonymizer_url", ["http"]],
    ];
    for (const [field, types] of foreign) {
      if (d[field] !== undefined && !types.includes(d.type)) ctx.addIssue({ code: "custom", path: [field], message: `${String(field)} is an option of ${types.join(" and ")} guardrails, not of ${d.type}` });
    }
  });

export type GuardrailDefinition = z.output<typeof ZGuardrailDefinition>;

/** What a guardrail is attached to, in the order they run: the operator's, the workspace's, then the caller's plan's and key's. */
export const ATTACH_LEVELS = ["global", "workspace", "plan", "key"] as const;
export type AttachLevel = (typeof ATTACH_LEVELS)[number];
