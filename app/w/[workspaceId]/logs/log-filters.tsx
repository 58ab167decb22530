"use client";
// The Logs page's filters. The selects apply at once; the text filters (exact values, no
// prefix search) apply together on Enter or "Apply", so no query is made per keystroke.
import type { KeyView } from "@/server/identity/keys/key-view";
import { KeySelect, PlanSelect } from "@/app/_components/key-plan-selects";
import { Button, SelectField, TextField } from "@/app/_components/ui";
import { RANGES, STATUS_CLASSES, type LogFilterState, type Range, type StatusClass } from "./use-log-filter";

const TEXT_FILTERS = [
  { field: "code", label: "Error code", placeholder: "e.g. rate_limit_exceeded", maxLength: 100 },
  { field: "model", label: "Model", placeholder: "any model", maxLength: 300 },
  { field: "subject", label: "Subject", placeholder: "any end user", maxLength: 300 },
  { field: "tag", label: "Tag", placeholder: "team=search, or team", maxLength: 200 },
] as const;

export function LogFilters({
  value,
  onChange,
  keys,
  plans,
}: {
  value: LogFilterState;
  onChange: (next: LogFilterState) => void;
  keys: KeyView[];
  plans: Array<{ id: string; name: string }>;
}) {
  return (
    <form
      role="search"
      aria-label="Log filters"
      // Remounted when the URL's text filters change (back/forward, a reset), so the fields show them.
      key={TEXT_FILTERS.map((t) => value[t.field]).join("\n")}
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const next = { ...value };
        for (const t of TEXT_FILTERS) next[t.field] = String(data.get(t.field) ?? "").trim();
        onChange(next);
      }}
      className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4"
    >
      <SelectField label="Time" value={value.range} onChange={(e) => onChange({ ...value, range: e.target.value as Range })}>
        {Object.entries(RANGES).map(([id, r]) => (
          <option key={id} value={id}>
            {r.label}
          </option>
        ))}
      </SelectField>
      <SelectField label="Status" value={value.status} onChange={(e) => onChange({ ...value, status: e.target.value as StatusClass | "" })}>
        <option value="">Any status</option>
        {STATUS_CLASSES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </SelectField>
      <KeySelect value={value.keyId} keys={keys} onChange={(keyId) => onChange({ ...value, keyId })} />
      <PlanSelect value={value.planId} plans={plans} onChange={(planId) => onChange({ ...value, planId })} />
      {TEXT_FILTERS.map((t) => (
        <TextField key={t.field} label={t.label} name={t.field} type="search" maxLength={t.maxLength} defaultValue={value[t.field]} placeholder={t.placeholder} />
      ))}
      <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-4">
        <Button type="submit">Apply</Button>
        <Button variant="ghost" onClick={() => onChange({ range: value.range, status: "", code: "", model: "", keyId: "", planId: "", subject: "", tag: "" })}>
          Clear filters
        </Button>
      </div>
    </form>
  );
}
