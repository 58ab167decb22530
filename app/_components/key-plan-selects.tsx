"use client";
// The key and plan filters the usage and logs pages share: every key (revoked ones said so) and
// plan of the workspace, and the current value kept as an option when the list no longer has it
// (a link to a filtered view of a deleted plan still shows what it filters by).
import type { KeyView } from "@/server/identity/keys/key-view";
import { SelectField } from "./ui";

export function KeySelect({ value, keys, onChange }: { value: string; keys: KeyView[]; onChange: (keyId: string) => void }) {
  return (
    <SelectField label="Key" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">All keys</option>
      {keys.map((k) => (
        <option key={k.id} value={k.id}>
          {k.name} ({k.prefix}…){k.revokedAt ? " — revoked" : ""}
        </option>
      ))}
      {value && !keys.some((k) => k.id === value) ? <option value={value}>{value}</option> : null}
    </SelectField>
  );
}

export function PlanSelect({ value, plans, onChange }: { value: string; plans: Array<{ id: string; name: string }>; onChange: (planId: string) => void }) {
  return (
    <SelectField label="Plan" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">All plans</option>
      {plans.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
        </option>
      ))}
      {value && !plans.some((p) => p.id === value) ? <option value={value}>{value}</option> : null}
    </SelectField>
  );
}
