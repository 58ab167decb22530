"use client";
// The "Add server" form of owners and admins: name, URL, transport, how the gateway authenticates
// to the server (none, header lines, OAuth client credentials) and its price per call, saved with
// mcp.add, which registers the server (or replaces the workspace's of that name) and lists its
// tools. A server that does not answer is still added, marked down; the server's refusal, which
// names the field, is shown as it came.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { MCP_TRANSPORTS } from "@/server/mcp/server-def";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, SelectField, TextareaField, TextField } from "@/app/_components/ui";
import { NEW_SERVER, serverOf, type AuthKind, type ServerFormValues } from "./tools-format";

const TRANSPORT_LABELS = { streamable_http: "Streamable HTTP", sse: "HTTP+SSE (older servers)" } as const;
const AUTH_LABELS = { none: "none", header: "headers (an API key or token)", oauth: "OAuth client credentials" } as const;

export function AddServerForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [v, setValues] = useState(NEW_SERVER);
  const [formError, setFormError] = useState<string | null>(null);
  const save = useMutation(
    trpc.mcp.add.mutationOptions({
      onSuccess: () => {
        setValues(NEW_SERVER);
        return refresh(queryClient, trpc.mcp.list.queryKey());
      },
    }),
  );
  const set = <K extends keyof ServerFormValues>(field: K, value: ServerFormValues[K]) => setValues((old) => ({ ...old, [field]: value }));

  function submit(e: FormEvent) {
    e.preventDefault();
    save.reset();
    const built = serverOf(v);
    if ("error" in built) return setFormError(built.error);
    setFormError(null);
    save.mutate(built);
  }

  return (
    <Card title="Add server">
      <form onSubmit={submit} aria-label="Add server" className="flex flex-col gap-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Name" required value={v.name} onChange={(e) => set("name", e.target.value)} placeholder="github" hint="Lower-case letters, digits, - and _; its tools are offered as name__tool. Saving a name that exists replaces that server." />
          <TextField label="URL" type="url" required value={v.url} onChange={(e) => set("url", e.target.value)} placeholder="https://mcp.example.com/mcp" hint="A public https address, unless the operator allows more." />
          <SelectField label="Transport" value={v.transport} onChange={(e) => set("transport", e.target.value as ServerFormValues["transport"])}>
            {MCP_TRANSPORTS.map((t) => (
              <option key={t} value={t}>
                {TRANSPORT_LABELS[t]}
              </option>
            ))}
          </SelectField>
          <TextField label="Price per call (USD, optional)" inputMode="decimal" value={v.price} onChange={(e) => set("price", e.target.value)} placeholder="0.002" hint="What a call of any of its tools costs the caller; empty: free. A tool can have its own price below." />
          <SelectField label="Authentication" value={v.authKind} onChange={(e) => set("authKind", e.target.value as AuthKind)}>
            {(Object.keys(AUTH_LABELS) as AuthKind[]).map((k) => (
              <option key={k} value={k}>
                {AUTH_LABELS[k]}
              </option>
            ))}
          </SelectField>
          <TextField label="Description (optional)" value={v.description} maxLength={500} onChange={(e) => set("description", e.target.value)} />
        </div>
        {v.authKind === "header" ? (
          <TextareaField
            label="Headers"
            value={v.headers}
            onChange={(e) => set("headers", e.target.value)}
            rows={3}
            spellCheck={false}
            className="[&_textarea]:font-mono [&_textarea]:text-xs"
            placeholder="Authorization: Bearer …"
            hint="Name: value, one a line, sent with every request to the server. Stored encrypted and never shown again."
          />
        ) : null}
        {v.authKind === "oauth" ? (
          <fieldset className="grid gap-4 rounded-md border border-slate-200 p-4 sm:grid-cols-2">
            <legend className="px-1 text-sm font-medium text-slate-700">OAuth client credentials</legend>
            <TextField label="Token URL" type="url" required value={v.tokenUrl} onChange={(e) => set("tokenUrl", e.target.value)} />
            <TextField label="Scope (optional)" value={v.scope} onChange={(e) => set("scope", e.target.value)} />
            <TextField label="Client ID" required value={v.clientId} onChange={(e) => set("clientId", e.target.value)} />
            <TextField label="Client secret" type="password" required autoComplete="off" value={v.clientSecret} onChange={(e) => set("clientSecret", e.target.value)} hint="Stored encrypted and never shown again." />
          </fieldset>
        ) : null}
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" busy={save.isPending}>
            Add server
          </Button>
          {save.isSuccess ? (
            <p role="status" className={save.data.status === "down" ? "text-sm text-amber-800" : "text-sm text-green-700"}>
              Added the server <code className="font-mono">{save.data.name}</code>
              {save.data.status === "down" ? `, but it did not answer: ${save.data.last_error ?? "no reason given"}. Its tools are listed when it answers a refresh.` : ` with ${save.data.tools.length} tool${save.data.tools.length === 1 ? "" : "s"}.`}
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
