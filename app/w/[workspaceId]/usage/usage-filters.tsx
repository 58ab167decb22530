"use client";
// Key, plan, end user, tag, grouping by a tag key and date range of the usage page. Empty dates mean the server's default:
// the last 30 UTC days.
import type { KeyView } from "@/server/identity/keys/key-view";
import { KeySelect, PlanSelect } from "@/app/_components/key-plan-selects";
import { TextField } from "@/app/_components/ui";
import { SubjectField } from "./subject-field";
import type { UsageFilterState } from "./use-usage-filter";

export type UsageFilterInput = { apiKeyId?: string; planId?: string; subject?: string; tag?: string; from?: string; to?: string };

const TAG = { label: "Tag", hint: "key=value, or key for any value.", placeholder: "team=search", maxLength: 200 };
const GROUP = { label: "Group by tag", hint: "A tag key: cost per value (team, feature, customer).", placeholder: "team", maxLength: 64 };

export function UsageFilters({
  value,
  onChange,
  keys,
  plans,
}: {
  value: UsageFilterState;
  onChange: (next: UsageFilterState) => void;
  keys: KeyView[];
  plans: Array<{ id: string; name: string }>;
}) {
  return (
    <form role="search" aria-label="Usage filters" onSubmit={(e) => e.preventDefault()} className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      <KeySelect value={value.apiKeyId} keys={keys} onChange={(apiKeyId) => onChange({ ...value, apiKeyId })} />
      <PlanSelect value={value.planId} plans={plans} onChange={(planId) => onChange({ ...value, planId })} />
      <SubjectField value={value.subject} onChange={(subject) => onChange({ ...value, subject })} />
      <SubjectField value={value.tag} onChange={(tag) => onChange({ ...value, tag })} field={TAG} />
      <SubjectField value={value.groupByTag} onChange={(groupByTag) => onChange({ ...value, groupByTag })} field={GROUP} />
      <TextField label="From" type="date" value={value.from} max={value.to || undefined} onChange={(e) => onChange({ ...value, from: e.target.value })} hint="UTC day; empty: 30 days before To." />
      <TextField label="To" type="date" value={value.to} min={value.from || undefined} onChange={(e) => onChange({ ...value, to: e.target.value })} hint="UTC day, included; empty: today." />
    </form>
  );
}

/** The filter as procedure input: empty fields are left to the server's defaults. */
export function toInput(f: UsageFilterState): UsageFilterInput {
  const input: UsageFilterInput = {};
  for (const field of ["apiKeyId", "planId", "subject", "tag", "from", "to"] as const) if (f[field]) input[field] = f[field];
  return input;
}
