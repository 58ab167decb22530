"use client";
// The fields of a node, shared by the "Add node" form and the edit panel.
import type { ChangeEvent } from "react";
import { SelectField, TextField } from "@/app/_components/ui";

export type NodeWire = "openai" | "anthropic" | "gemini" | "azure" | "bedrock" | "vertex";
export type NodeFieldValues = { name: string; url: string; wire: NodeWire; apiKey: string; city: string; country: string; weight: string };
export const EMPTY_NODE: NodeFieldValues = { name: "", url: "", wire: "openai", apiKey: "", city: "", country: "", weight: "1" };

const URL_HINTS: Record<NodeWire, { placeholder: string; hint: string }> = {
  openai: { placeholder: "http://10.0.0.5:8000/v1", hint: "The node's OpenAI-compatible base URL, ending in /v1." },
  anthropic: { placeholder: "https://api.anthropic.com", hint: "Anthropic's API (or a server speaking its Messages API); /v1 is added to a bare address." },
  gemini: { placeholder: "https://generativelanguage.googleapis.com", hint: "Google's Gemini API; /v1beta is added to a bare address." },
  azure: { placeholder: "https://my-resource.openai.azure.com", hint: "The Azure OpenAI resource's endpoint." },
  bedrock: { placeholder: "https://bedrock-runtime.us-east-1.amazonaws.com", hint: "Optional: Bedrock's address in the region, or a VPC endpoint." },
  vertex: { placeholder: "https://us-central1-aiplatform.googleapis.com", hint: "Optional: Vertex AI's address in the location, or a private endpoint." },
};

export function NodeFields({
  values,
  onChange,
  apiKeyHint,
  showWire = false,
}: {
  values: NodeFieldValues;
  onChange: (next: NodeFieldValues) => void;
  apiKeyHint: string;
  /** The wire format is chosen when a node is added; an existing node keeps its own. */
  showWire?: boolean;
}) {
  const set = (key: keyof NodeFieldValues) => (e: ChangeEvent<HTMLInputElement>) => onChange({ ...values, [key]: e.target.value });
  const url = URL_HINTS[values.wire];
  return (
    <>
      <TextField label="Name" value={values.name} onChange={set("name")} required maxLength={64} hint="Letters, digits, '.', '_' and '-'." />
      {showWire ? (
        <SelectField label="Wire format" value={values.wire} onChange={(e) => onChange({ ...values, wire: e.target.value as NodeWire })} hint="The API the node speaks. Anthropic and Gemini models are imported unpriced: set their prices before they are served.">
          <option value="openai">OpenAI (vLLM, Ollama, OpenAI, compatible servers)</option>
          <option value="anthropic">Anthropic Messages API</option>
          <option value="gemini">Google Gemini API</option>
          <option value="azure">Azure OpenAI</option>
          <option value="bedrock">AWS Bedrock</option>
          <option value="vertex">Google Vertex AI</option>
        </SelectField>
      ) : null}
      <TextField
        label="Base URL"
        type="url"
        value={values.url}
        onChange={set("url")}
        required={values.wire !== "bedrock" && values.wire !== "vertex"}
        placeholder={url.placeholder}
        hint={url.hint}
      />
      <TextField label="API key (optional)" type="password" autoComplete="off" value={values.apiKey} onChange={set("apiKey")} hint={apiKeyHint} />
      <TextField label="City" value={values.city} onChange={set("city")} required maxLength={100} />
      <TextField label="Country" value={values.country} onChange={set("country")} required maxLength={2} placeholder="DE" hint="Two-letter ISO code." />
      <TextField label="Weight" type="number" min={1} max={1000} step={1} value={values.weight} onChange={set("weight")} hint="Share of traffic relative to other nodes." />
    </>
  );
}
