"use client";
// Creates a plan, or edits one (every field is sent, so a cleared field clears the limit).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from "react";
import type { PlanView } from "@/server/identity/plans/plan-view";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, SelectField, TextareaField, TextField } from "@/app/_components/ui";
import { LIFETIME_UNITS, type LifetimeUnit } from "./plan-format";
import { EMPTY_PLAN, planToValues, valuesToInput, type FieldErrors, type PlanFormValues } from "./plan-form-values";

export function PlanForm({ plan, onDone }: { plan?: PlanView; onDone?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<PlanFormValues>(plan ? planToValues(plan) : EMPTY_PLAN);
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useRef<HTMLFormElement>(null);
  // The edit form opens below the table: take keyboard focus there, and show it.
  const editingId = plan?.id;
  useEffect(() => {
    if (!editingId) return;
    form.current?.querySelector("input")?.focus();
    form.current?.scrollIntoView({ block: "nearest" });
  }, [editingId]);
  const done = async () => {
    await refresh(queryClient, trpc.plans.pathKey());
    if (!plan) setValues(EMPTY_PLAN);
    onDone?.();
  };
  const create = useMutation(trpc.plans.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(trpc.plans.update.mutationOptions({ onSuccess: done }));
  const mutation = plan ? update : create;
  const set = (key: keyof PlanFormValues) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
    setValues((v) => ({ ...v, [key]: e.target.value }));

  function submit(e: FormEvent) {
    e.preventDefault();
    const result = valuesToInput(values);
    if ("errors" in result) return setErrors(result.errors);
    setErrors({});
    if (plan) update.mutate({ id: plan.id, ...result.input });
    else create.mutate(result.input);
  }

  const title = plan ? `Edit ${plan.name}` : "Create a plan";
  return (
    <Card title={title}>
      <form ref={form} onSubmit={submit} aria-label={title} className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <TextField label="Plan name" required maxLength={100} value={values.name} onChange={set("name")} placeholder="e.g. free" className="lg:col-span-2" />
        <TextareaField
          label="Models"
          value={values.models}
          onChange={set("models")}
          placeholder="all models"
          hint="Model ids, one per line or separated by commas. Empty: every model."
          className="sm:row-span-2 lg:col-span-2"
        />
        <TextareaField
          label="MCP tools"
          value={values.tools}
          onChange={set("tools")}
          placeholder="all tools"
          hint="Patterns of <server>__<tool>, * for any characters (github__*, search__web). Empty: every tool."
          className="sm:row-span-2 lg:col-span-2"
        />
        <TextField label="Requests per minute" inputMode="numeric" value={values.rpm} onChange={set("rpm")} error={errors.rpm} placeholder="default" />
        <TextField label="Tokens per minute" inputMode="numeric" value={values.tpm} onChange={set("tpm")} error={errors.tpm} placeholder="default" />
        <TextField label="Concurrent requests" inputMode="numeric" value={values.concurrency} onChange={set("concurrency")} error={errors.concurrency} placeholder="default" />
        <TextField label="Daily cap (USD)" inputMode="decimal" value={values.dailyCap} onChange={set("dailyCap")} error={errors.dailyCap} placeholder="no cap" hint="Per end user (per key) and UTC day." />
        <TextField label="Monthly cap (USD)" inputMode="decimal" value={values.monthlyCap} onChange={set("monthlyCap")} error={errors.monthlyCap} placeholder="no cap" hint="Per end user (per key) and UTC month." />
        <div className="grid grid-cols-[minmax(0,1fr)_auto] gap-2">
          <TextField
            label="Token lifetime"
            inputMode="numeric"
            required
            value={values.lifetime}
            onChange={set("lifetime")}
            error={errors.lifetime}
            hint="The longest a session token may live."
            className="min-w-0"
          />
          <SelectField label="Unit" value={values.lifetimeUnit} onChange={(e) => setValues((v) => ({ ...v, lifetimeUnit: e.target.value as LifetimeUnit }))}>
            {LIFETIME_UNITS.map((u) => (
              <option key={u.unit} value={u.unit}>
                {u.unit}
              </option>
            ))}
          </SelectField>
        </div>
        <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-4">
          <Button type="submit" busy={mutation.isPending}>
            {plan ? "Save plan" : "Create plan"}
          </Button>
          {plan ? (
            <Button variant="secondary" onClick={onDone}>
              Cancel
            </Button>
          ) : null}
        </div>
      </form>
      {mutation.error ? (
        <div className="mt-4">
          <ErrorState error={mutation.error} />
        </div>
      ) : null}
    </Card>
  );
}
