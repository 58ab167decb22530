"use client";
// The fields of a node, shared by the "Add node" form and the edit panel.
import type { ChangeEvent } from "react";
import { TextField } from "@/app/_components/ui";

export type NodeFieldValues = { name: string; url: string; apiKey: string; city: string; country: string; weight: string };
export const EMPTY_NODE: NodeFieldValues = { name: "", url: "", apiKey: "", city: "", country: "", weight: "1" };

export function NodeFields({
  values,
  onChange,
  apiKeyHint,
}: {
  values: NodeFieldValues;
  onChange: (next: NodeFieldValues) => void;
  apiKeyHint: string;
}) {
  const set = (key: keyof NodeFieldValues) => (e: ChangeEvent<HTMLInputElement>) => onChange({ ...values, [key]: e.target.value });
  return (
    <>
      <TextField label="Name" value={values.name} onChange={set("name")} required maxLength={64} hint="Letters, digits, '.', '_' and '-'." />
      <TextField label="Base URL" type="url" value={values.url} onChange={set("url")} required placeholder="http://10.0.0.5:8000/v1" hint="The node's OpenAI-compatible base URL, ending in /v1." />
      <TextField label="API key (optional)" type="password" autoComplete="off" value={values.apiKey} onChange={set("apiKey")} hint={apiKeyHint} />
      <TextField label="City" value={values.city} onChange={set("city")} required maxLength={100} />
      <TextField label="Country" value={values.country} onChange={set("country")} required maxLength={2} placeholder="DE" hint="Two-letter ISO code." />
      <TextField label="Weight" type="number" min={1} max={1000} step={1} value={values.weight} onChange={set("weight")} hint="Share of traffic relative to other nodes." />
    </>
  );
}
