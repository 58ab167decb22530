"use client";
// Key and date range of the usage page. Empty dates mean the server's default: the last 30 UTC days.
import type { KeyView } from "@/server/identity/keys/key-view";
import { SelectField, TextField } from "@/app/_components/ui";

export type UsageFilterState = { apiKeyId: string; from: string; to: string };

export function UsageFilters({ value, onChange, keys }: { value: UsageFilterState; onChange: (next: UsageFilterState) => void; keys: KeyView[] }) {
  return (
    <form role="search" aria-label="Usage filters" onSubmit={(e) => e.preventDefault()} className="grid gap-4 sm:grid-cols-3">
      <SelectField label="Key" value={value.apiKeyId} onChange={(e) => onChange({ ...value, apiKeyId: e.target.value })}>
        <option value="">All keys</option>
        {keys.map((k) => (
          <option key={k.id} value={k.id}>
            {k.name} ({k.prefix}…){k.revokedAt ? " — revoked" : ""}
          </option>
        ))}
      </SelectField>
      <TextField label="From" type="date" value={value.from} max={value.to || undefined} onChange={(e) => onChange({ ...value, from: e.target.value })} hint="UTC day; empty: 30 days before To." />
      <TextField label="To" type="date" value={value.to} min={value.from || undefined} onChange={(e) => onChange({ ...value, to: e.target.value })} hint="UTC day, included; empty: today." />
    </form>
  );
}

/** The filter as procedure input: empty fields are left to the server's defaults. */
export function toInput(f: UsageFilterState): { apiKeyId?: string; from?: string; to?: string } {
  return { ...(f.apiKeyId ? { apiKeyId: f.apiKeyId } : {}), ...(f.from ? { from: f.from } : {}), ...(f.to ? { to: f.to } : {}) };
}
