"use client";
// The fields a cloud node (Azure OpenAI, AWS Bedrock, Google Vertex AI) needs beside a node's own:
// where the service is, and the credentials the gateway uses there (sent once, stored sealed).
import type { ChangeEvent } from "react";
import { TextareaField, TextField } from "@/app/_components/fields";

export type CloudWire = "azure" | "bedrock" | "vertex";
export type CloudFieldValues = {
  apiVersion: string;
  deployments: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  project: string;
  location: string;
  serviceAccount: string;
};
export const EMPTY_CLOUD: CloudFieldValues = {
  apiVersion: "",
  deployments: "",
  tenantId: "",
  clientId: "",
  clientSecret: "",
  region: "",
  accessKeyId: "",
  secretAccessKey: "",
  project: "",
  location: "",
  serviceAccount: "",
};

export const isCloud = (wire: string): wire is CloudWire => wire === "azure" || wire === "bedrock" || wire === "vertex";

const given = (value: string) => value.trim() || undefined;
const compact = (record: Record<string, unknown>) => {
  const kept = Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? kept : undefined;
};

/** What the form sends for a cloud node: its settings, credentials and deployments (MODEL=DEPLOYMENT lines). */
export function cloudInput(wire: CloudWire, v: CloudFieldValues) {
  const models = Object.fromEntries(
    v.deployments
      .split("\n")
      .map((line) => line.split("=").map((part) => part.trim()))
      .filter((pair) => pair.length === 2 && pair[0] && pair[1]),
  ) as Record<string, string>;
  if (wire === "azure") {
    return {
      cloud: compact({ apiVersion: given(v.apiVersion) }),
      credentials: compact({ tenant_id: given(v.tenantId), client_id: given(v.clientId), client_secret: given(v.clientSecret) }),
      models,
    };
  }
  if (wire === "bedrock") {
    return { cloud: compact({ region: given(v.region) }), credentials: compact({ access_key_id: given(v.accessKeyId), secret_access_key: given(v.secretAccessKey) }), models };
  }
  let serviceAccount: unknown;
  if (v.serviceAccount.trim()) {
    try {
      serviceAccount = JSON.parse(v.serviceAccount);
    } catch {
      serviceAccount = v.serviceAccount; // refused by the server, which names the field
    }
  }
  return { cloud: compact({ project: given(v.project), location: given(v.location) }), credentials: compact({ service_account: serviceAccount }), models };
}

export function CloudFields({ wire, values, onChange }: { wire: CloudWire; values: CloudFieldValues; onChange: (next: CloudFieldValues) => void }) {
  const set = (key: keyof CloudFieldValues) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange({ ...values, [key]: e.target.value });
  if (wire === "azure") {
    return (
      <>
        <TextField label="API version (optional)" value={values.apiVersion} onChange={set("apiVersion")} placeholder="2024-10-21" hint="With one, calls go to /openai/deployments/…?api-version=; without, to Azure's /openai/v1/ paths." />
        <TextField label="Entra tenant ID (optional)" value={values.tenantId} onChange={set("tenantId")} hint="With a client ID and secret: Microsoft Entra ID tokens instead of the API key." />
        <TextField label="Entra client ID (optional)" value={values.clientId} onChange={set("clientId")} />
        <TextField label="Entra client secret (optional)" type="password" autoComplete="off" value={values.clientSecret} onChange={set("clientSecret")} hint="Stored encrypted and never shown again." />
        <TextareaField label="Deployments" value={values.deployments} onChange={set("deployments")} placeholder="gpt-4o=my-gpt4o-deployment" hint="One MODEL=DEPLOYMENT per line: the catalog model and the deployment that serves it." className="sm:col-span-2" />
      </>
    );
  }
  if (wire === "bedrock") {
    return (
      <>
        <TextField label="AWS region" value={values.region} onChange={set("region")} required placeholder="us-east-1" />
        <TextField label="Access key ID (optional)" value={values.accessKeyId} onChange={set("accessKeyId")} hint="Without keys (or a Bedrock API key above), the gateway's own AWS credential chain: environment, profile, role." />
        <TextField label="Secret access key (optional)" type="password" autoComplete="off" value={values.secretAccessKey} onChange={set("secretAccessKey")} hint="Stored encrypted and never shown again." />
      </>
    );
  }
  return (
    <>
      <TextField label="Google Cloud project" value={values.project} onChange={set("project")} required placeholder="my-project" />
      <TextField label="Location" value={values.location} onChange={set("location")} required placeholder="us-central1" hint="A region, or global." />
      <TextareaField label="Service account key (optional)" value={values.serviceAccount} onChange={set("serviceAccount")} placeholder='{"type": "service_account", …}' hint="The key file's JSON; without one, the metadata server's (workload identity). Stored encrypted." className="sm:col-span-2" />
    </>
  );
}
