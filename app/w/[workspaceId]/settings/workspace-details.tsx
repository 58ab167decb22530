"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, ErrorState, Loading, TextField } from "@/app/_components/ui";
import { roleName } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { can } from "@/server/identity/workspaces/permissions";

/**
 * The form is keyed by the stored name, so a rename made elsewhere shows in it; the "Saved." notice
 * is its parent's, as the refetch that follows a save remounts the form.
 */
function RenameForm({ name, saved, onSaved }: { name: string; saved: boolean; onSaved: (saved: boolean) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [value, setValue] = useState(name);
  const rename = useMutation(
    trpc.workspaces.rename.mutationOptions({
      onSuccess: (res) => {
        setValue(res.name);
        onSaved(true);
        void refresh(queryClient, trpc.workspaces.current.queryKey());
        // The workspace switcher is rendered from the server: reload it with the new name.
        router.refresh();
      },
    }),
  );
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    rename.mutate({ name: value });
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <TextField
        label="Workspace name"
        name="name"
        className="flex-1"
        value={value}
        maxLength={100}
        required
        onChange={(e) => {
          setValue(e.target.value);
          rename.reset();
          onSaved(false);
        }}
      />
      <Button type="submit" busy={rename.isPending} disabled={!value.trim() || value.trim() === name}>
        Save
      </Button>
      <p aria-live="polite" className="text-sm text-green-700 sm:pb-2">
        {saved ? "Saved." : null}
      </p>
      {rename.isError ? (
        <div className="sm:basis-full">
          <ErrorState error={rename.error} />
        </div>
      ) : null}
    </form>
  );
}

export function WorkspaceDetails() {
  const trpc = useTRPC();
  const current = useQuery(trpc.workspaces.current.queryOptions());
  const [renamed, setRenamed] = useState(false);
  if (current.isPending) return <Card title="Workspace"><Loading label="Loading the workspace…" /></Card>;
  if (current.isError) return <Card title="Workspace"><ErrorState error={current.error} onRetry={() => void current.refetch()} /></Card>;
  const ws = current.data;
  return (
    <Card title="Workspace">
      <div className="flex flex-col gap-6">
        {can(ws, "workspace.rename") ? (
          <RenameForm key={ws.name} name={ws.name} saved={renamed} onSaved={setRenamed} />
        ) : (
          <p className="text-sm text-slate-600">
            Name: <span className="font-medium text-slate-900">{ws.name}</span>. Only owners and admins can rename the workspace.
          </p>
        )}
        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[auto_1fr]">
          <dt className="text-slate-500">Workspace ID</dt>
          <dd>
            <code className="break-all rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">{ws.id}</code>
          </dd>
          <dt className="text-slate-500">Your role</dt>
          <dd>
            <Badge tone="indigo">{roleName(ws)}</Badge>
          </dd>
          <dt className="text-slate-500">Members</dt>
          <dd>{ws.members}</dd>
          <dt className="text-slate-500">Created</dt>
          <dd>{new Date(ws.createdAt).toLocaleString()}</dd>
        </dl>
      </div>
    </Card>
  );
}
