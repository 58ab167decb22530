"use client";
// The guardrail editor of owners and admins: the common fields (name, type, stage, action, what to
// do when the check fails, its timeout) and the chosen type's options, saved with guardrails.add,
// which creates the guardrail or replaces the workspace's guardrail of that name (its attachments
// kept). The server checks it whole (its patterns as RE2, its schema, its model, its URLs) and its
// refusal, which names the field, is shown beside the form as it came. An http guardrail's signing
// secret is shown once, right after it was first added.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { ACTIONS, GUARDRAIL_TYPES, HTTP_ADAPTERS, ON_ERROR, STAGES, type GuardrailType } from "@/server/guardrails/guardrail-schema";
import { PII_KINDS } from "@/server/guardrails/detectors/pii";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { SecretOnce } from "@/app/_components/secret-once";
import { Button, Card, ErrorState, SelectField, TextareaField, TextField } from "@/app/_components/ui";
import { definitionOf, REDACTING, TYPE_LABELS, type FormValues } from "./guardrail-format";

export type Draft = { values: FormValues; editing: string | null; override: boolean };

const STAGE_LABELS = { input: "input (the call's messages)", output: "output (the model's answer)", both: "both" } as const;
const ACTION_LABELS = { block: "block the call", redact: "redact what it finds", flag: "flag it in the log" } as const;
const ON_ERROR_LABELS = { allow: "allow the call", block: "block the call" } as const;

function Options({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="flex flex-col gap-4 rounded-md border border-slate-200 p-4">
      <legend className="px-1 text-sm font-medium text-slate-700">{legend}</legend>
      {children}
    </fieldset>
  );
}

export function GuardrailEditor({ draft, onNew }: { draft: Draft; onNew: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [v, setValues] = useState(draft.values);
  const [formError, setFormError] = useState<string | null>(null);
  const [secretSeen, setSecretSeen] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const save = useMutation(
    trpc.guardrails.add.mutationOptions({
      onSuccess: () => {
        setSecretSeen(false);
        return refresh(queryClient, trpc.guardrails.list.queryKey());
      },
    }),
  );
  // Editing a listed guardrail opens it here, above the list: take keyboard focus, and show it.
  useEffect(() => {
    if (!draft.editing) return;
    form.current?.querySelector("input")?.focus();
    form.current?.scrollIntoView({ block: "nearest" });
  }, [draft.editing]);

  const set = <K extends keyof FormValues>(field: K, value: FormValues[K]) => setValues((old) => ({ ...old, [field]: value }));
  // A type that cannot redact blocks instead; a schema guardrail checks the answer.
  const setType = (type: GuardrailType) =>
    setValues((old) => ({ ...old, type, action: old.action === "redact" && !REDACTING.has(type) ? "block" : old.action, stage: type === "schema" ? "output" : old.stage }));
  const toggleEntity = (kind: string, on: boolean) => setValues((old) => ({ ...old, entities: on ? [...old.entities, kind] : old.entities.filter((k) => k !== kind) }));

  function submit(e: FormEvent) {
    e.preventDefault();
    save.reset();
    const built = definitionOf(v);
    if ("error" in built) return setFormError(built.error);
    setFormError(null);
    save.mutate({ definition: built.definition });
  }

  const title = draft.editing ? (draft.override ? `Override ${draft.editing} in this workspace` : `Edit ${draft.editing}`) : "Add a guardrail";
  const secret = save.data?.signing_secret;
  return (
    <Card title={title}>
      {secret && !secretSeen ? (
        <div className="mb-4">
          <SecretOnce
            id="guardrail-secret-title"
            title={
              <>
                Signing secret of the guardrail <code className="font-mono">{save.data?.name}</code>
              </>
            }
            advice="The gateway signs each check it sends your service with it (x-gateway-signature). It is shown only once and cannot be retrieved later."
            secret={secret}
            noun="secret"
            testId="guardrail-secret"
            onDone={() => setSecretSeen(true)}
          />
        </div>
      ) : null}
      <form ref={form} onSubmit={submit} aria-label={title} className="flex flex-col gap-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Name"
            required
            value={v.name}
            onChange={(e) => set("name", e.target.value)}
            placeholder="no-emails"
            hint={draft.override ? "Keep the name: this workspace's guardrail of that name takes the gateway-wide one's place here." : "Letters, digits and . _ - ; saving a name that exists replaces that guardrail."}
          />
          <SelectField label="Type" value={v.type} onChange={(e) => setType(e.target.value as GuardrailType)}>
            {GUARDRAIL_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </SelectField>
          <SelectField label="Stage" value={v.stage} onChange={(e) => set("stage", e.target.value as FormValues["stage"])} hint={v.type === "schema" ? "A schema guardrail checks the output." : undefined}>
            {STAGES.map((s) => (
              <option key={s} value={s}>
                {STAGE_LABELS[s]}
              </option>
            ))}
          </SelectField>
          <SelectField label="Action" value={v.action} onChange={(e) => set("action", e.target.value as FormValues["action"])} hint={REDACTING.has(v.type) ? undefined : `A ${v.type} guardrail finds that a text is unwanted, not what to replace: it blocks or flags.`}>
            {ACTIONS.map((a) => (
              <option key={a} value={a} disabled={a === "redact" && !REDACTING.has(v.type)}>
                {ACTION_LABELS[a]}
              </option>
            ))}
          </SelectField>
          <SelectField label="When the check fails or times out" value={v.on_error} onChange={(e) => set("on_error", e.target.value as FormValues["on_error"])}>
            {ON_ERROR.map((o) => (
              <option key={o} value={o}>
                {ON_ERROR_LABELS[o]}
              </option>
            ))}
          </SelectField>
          <TextField label="Timeout (ms)" type="number" min={1} max={30_000} step={1} required value={v.timeout_ms} onChange={(e) => set("timeout_ms", e.target.value)} />
        </div>
        <TextField label="Description (optional)" value={v.description} maxLength={500} onChange={(e) => set("description", e.target.value)} />

        {v.type === "pii" ? (
          <Options legend="Entities">
            <div className="flex flex-wrap gap-x-5 gap-y-2 text-sm">
              {PII_KINDS.map((kind) => (
                <label key={kind} className="flex items-center gap-2">
                  <input type="checkbox" className="size-4" checked={v.entities.includes(kind)} onChange={(e) => toggleEntity(kind, e.target.checked)} />
                  <span className="font-mono text-xs">{kind}</span>
                </label>
              ))}
            </div>
            <p className="text-xs text-slate-500">None checked: every kind. Redacted ones are replaced by a placeholder such as [EMAIL].</p>
          </Options>
        ) : null}
        {v.type === "deny" ? (
          <Options legend="Deny list">
            <TextareaField
              label="Patterns"
              value={v.patterns}
              onChange={(e) => set("patterns", e.target.value)}
              spellCheck={false}
              rows={4}
              className="[&_textarea]:font-mono [&_textarea]:text-xs"
              hint="RE2 expressions, one a line, matched case-insensitively (no backreferences or lookaround)."
            />
            <TextareaField label="Words" value={v.words} onChange={(e) => set("words", e.target.value)} rows={4} hint="Words and phrases, one a line, matched case-insensitively as whole words." />
          </Options>
        ) : null}
        {v.type === "injection" || v.type === "moderation" ? (
          <Options legend={v.type === "moderation" ? "Moderation model" : "Classifier (optional)"}>
            <TextField
              label="Model"
              value={v.model}
              onChange={(e) => set("model", e.target.value)}
              required={v.type === "moderation"}
              hint={v.type === "moderation" ? "A moderation model of the catalog." : "A moderation (classifier) model asked when the built-in heuristics find nothing; empty: the heuristics only."}
            />
            {v.type === "moderation" ? (
              <TextareaField
                label="Thresholds"
                value={v.thresholds}
                onChange={(e) => set("thresholds", e.target.value)}
                rows={3}
                spellCheck={false}
                className="[&_textarea]:font-mono [&_textarea]:text-xs"
                placeholder="violence=0.5"
                hint="category=score a line (0 to 1): a category counts at or above its score. Empty: the model's own flags."
              />
            ) : null}
          </Options>
        ) : null}
        {v.type === "schema" ? (
          <Options legend="JSON Schema">
            <TextareaField
              label="Schema (JSON)"
              value={v.schema}
              onChange={(e) => set("schema", e.target.value)}
              rows={Math.min(20, Math.max(6, v.schema.split("\n").length + 1))}
              spellCheck={false}
              className="[&_textarea]:font-mono [&_textarea]:text-xs"
              placeholder='{ "type": "object", "required": ["answer"] }'
              hint="The answer must be JSON valid against it."
            />
          </Options>
        ) : null}
        {v.type === "http" ? (
          <Options legend="Guard service">
            <TextField label="URL" type="url" required value={v.url} onChange={(e) => set("url", e.target.value)} placeholder="https://guard.example.com/check" hint="A public https address, unless the operator allows more." />
            <SelectField label="Adapter" value={v.adapter} onChange={(e) => set("adapter", e.target.value)}>
              <option value="">gateway (the default)</option>
              {HTTP_ADAPTERS.filter((a) => a !== "gateway").map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </SelectField>
            {v.adapter === "presidio" ? (
              <TextField
                label="Anonymizer URL (optional)"
                type="url"
                value={v.anonymizer_url}
                onChange={(e) => set("anonymizer_url", e.target.value)}
                hint="Presidio's anonymizer; without it, what the analyzer finds is replaced by [ENTITY_TYPE]."
              />
            ) : null}
          </Options>
        ) : null}

        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" busy={save.isPending}>
            Save guardrail
          </Button>
          {draft.editing ? (
            <Button variant="secondary" onClick={onNew}>
              New guardrail instead
            </Button>
          ) : null}
          {save.isSuccess ? (
            <p role="status" className="text-sm text-green-700">
              Saved the guardrail <code className="font-mono">{save.data.name}</code>.{save.data.attached_to.length ? "" : " Attach it below for it to run."}
            </p>
          ) : null}
        </div>
      </form>
      {formError || save.error ? (
        <div className="mt-4">
          <ErrorState error={formError ? { message: formError } : save.error} />
        </div>
      ) : null}
    </Card>
  );
}
