"use client";
// What a new key may call: every operation group (the default, as for every key made before
// restrictions existed) or only the ticked ones, and optionally only some models and MCP tools. The
// server checks the same lists (server/identity/keys/permissions.ts, tool-patterns.ts).
import { useId } from "react";
import { KEY_PERMISSIONS, PERMISSION_LABELS, type KeyPermission } from "@/server/identity/keys/permissions";
import { TextField } from "@/app/_components/ui";

export type PermissionChoice = { all: boolean; groups: KeyPermission[]; models: string; tools: string };

export const ALL_PERMISSIONS: PermissionChoice = { all: true, groups: [], models: "", tools: "" };

const commaList = (text: string) =>
  text
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean);

/** The form's choice as the procedure's input: absent fields mean no restriction. */
export function restrictionsOf(choice: PermissionChoice): { permissions?: KeyPermission[]; models?: string[]; tools?: string[] } {
  const models = commaList(choice.models);
  const tools = commaList(choice.tools);
  return { ...(choice.all ? {} : { permissions: choice.groups }), ...(models.length ? { models } : {}), ...(tools.length ? { tools } : {}) };
}

export function KeyPermissionsFields({ value, onChange, error }: { value: PermissionChoice; onChange: (next: PermissionChoice) => void; error?: string | null }) {
  const name = useId();
  const toggle = (group: KeyPermission, on: boolean) =>
    onChange({ ...value, groups: on ? KEY_PERMISSIONS.filter((g) => g === group || value.groups.includes(g)) : value.groups.filter((g) => g !== group) });
  return (
    <fieldset className="flex flex-col gap-2 sm:col-span-full">
      <legend className="text-sm font-medium text-slate-700">Permissions</legend>
      <div className="flex flex-wrap gap-4 text-sm">
        <label className="flex items-center gap-2">
          <input type="radio" name={name} checked={value.all} onChange={() => onChange({ ...value, all: true })} className="size-4" />
          All (every operation)
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name={name} checked={!value.all} onChange={() => onChange({ ...value, all: false })} className="size-4" />
          Restricted
        </label>
      </div>
      {value.all ? null : (
        <div className="grid gap-2 text-sm sm:grid-cols-2 lg:grid-cols-3" role="group" aria-label="Operation groups">
          {KEY_PERMISSIONS.map((group) => (
            <label key={group} className="flex items-center gap-2">
              <input type="checkbox" checked={value.groups.includes(group)} onChange={(e) => toggle(group, e.target.checked)} className="size-4" />
              <span>
                <code className="font-mono text-xs">{group}</code> <span className="text-slate-500">{PERMISSION_LABELS[group]}</span>
              </span>
            </label>
          ))}
        </div>
      )}
      {error ? <p className="text-xs text-red-600">{error}</p> : null}
      <TextField
        label="Models it may call"
        value={value.models}
        onChange={(e) => onChange({ ...value, models: e.target.value })}
        placeholder="all models"
        hint="Optional. Comma-separated model ids the key may call (within its plan's)."
      />
      <TextField
        label="MCP tools it may use"
        value={value.tools}
        onChange={(e) => onChange({ ...value, tools: e.target.value })}
        placeholder="all tools"
        hint="Optional. Comma-separated patterns of <server>__<tool>, * for any characters: github__*, search__web."
      />
    </fieldset>
  );
}
