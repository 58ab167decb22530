"use client";
// The workspace's custom roles: every member sees them and what they hold; those who manage roles
// create, change and delete them here, with a checkbox per permission and what it allows. Only the
// permissions the signed-in member holds can be ticked (the server refuses the others as well).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, CheckField, EmptyState, ErrorState, Loading, Table, Td, TextField } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import type { RoleView } from "@/server/identity/roles/role-schemas";
import type { Permission } from "@/server/identity/workspaces/permissions";
import { within } from "./role-choices";

type Draft = { id: string | null; name: string; description: string; permissions: string[] };
const EMPTY: Draft = { id: null, name: "", description: "", permissions: ["workspace.view"] };

function RoleForm({ draft, onDone }: { draft: Draft; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { workspace } = useWorkspace();
  const [form, setForm] = useState(draft);
  const catalog = useQuery(trpc.roles.permissions.queryOptions());
  const done = () => {
    void refresh(queryClient, trpc.roles.list.queryKey());
    onDone();
  };
  const create = useMutation(trpc.roles.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(trpc.roles.update.mutationOptions({ onSuccess: done }));
  const saving = create.isPending || update.isPending;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const fields = { name: form.name, description: form.description, permissions: form.permissions as Permission[] };
    if (form.id) update.mutate({ role: form.id, ...fields });
    else create.mutate(fields);
  }
  const toggle = (p: string, on: boolean) => setForm((f) => ({ ...f, permissions: on ? [...f.permissions, p] : f.permissions.filter((x) => x !== p) }));

  return (
    <form onSubmit={submit} aria-label={form.id ? `Edit role ${draft.name}` : "New role"} className="mt-4 flex flex-col gap-4 rounded-md border border-slate-200 p-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Role name" name="name" required maxLength={50} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        <TextField label="Description (optional)" name="description" maxLength={300} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
      </div>
      <fieldset className="grid gap-2 sm:grid-cols-2">
        <legend className="mb-2 text-sm font-medium text-slate-700">Permissions</legend>
        {catalog.isPending ? <Loading label="Loading permissions…" /> : null}
        {(catalog.data ?? []).map((p) => (
          <CheckField
            key={p.name}
            label={p.name}
            note={`${p.description} Built in: ${p.roles.join(", ")}.`}
            checked={p.name === "workspace.view" || form.permissions.includes(p.name)}
            // Every role sees the workspace; a permission the signed-in member lacks cannot be given.
            disabled={p.name === "workspace.view" || !within(workspace, [p.name])}
            onChange={(on) => toggle(p.name, on)}
          />
        ))}
      </fieldset>
      <ErrorState error={create.error ?? update.error} />
      <div className="flex gap-2">
        <Button type="submit" busy={saving}>
          {form.id ? "Save role" : "Create role"}
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function RoleRow({ role, mayEdit, onEdit }: { role: RoleView; mayEdit: boolean; onEdit: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.roles.delete.mutationOptions({ onSuccess: () => void refresh(queryClient, trpc.roles.list.queryKey()) }));
  return (
    <tr>
      <Td>
        <span className="font-medium">{role.name}</span>
        {role.description ? <span className="block text-xs text-slate-500">{role.description}</span> : null}
        {remove.error ? (
          <span role="alert" className="mt-1 block max-w-xs whitespace-normal text-xs text-red-600">
            {remove.error.message}
          </span>
        ) : null}
      </Td>
      <Td className="whitespace-normal">
        <span className="flex flex-wrap gap-1">
          {role.permissions.map((p) => (
            <Badge key={p}>{p}</Badge>
          ))}
        </span>
      </Td>
      <Td>{role.members}</Td>
      <Td className="text-right">
        {mayEdit ? (
          <span className="inline-flex gap-2">
            <Button variant="secondary" onClick={onEdit}>
              Edit<span className="sr-only"> role {role.name}</span>
            </Button>
            <Button variant="danger" busy={remove.isPending} onClick={() => remove.mutate({ role: role.id })}>
              Delete<span className="sr-only"> role {role.name}</span>
            </Button>
          </span>
        ) : null}
      </Td>
    </tr>
  );
}

export function RolesEditor() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const roles = useQuery(trpc.roles.list.queryOptions());
  const [draft, setDraft] = useState<Draft | null>(null);
  const manager = may(workspace, "roles.manage");

  return (
    <Card
      title="Custom roles"
      actions={manager && !draft ? <Button onClick={() => setDraft(EMPTY)}>New role</Button> : null}
    >
      <p className="mb-4 text-sm text-slate-600">
        A custom role holds exactly the permissions ticked for it; give it to members in the list above. A role still held by a member cannot be deleted.
      </p>
      {roles.isPending ? (
        <Loading label="Loading roles…" />
      ) : roles.isError ? (
        <ErrorState error={roles.error} onRetry={() => void roles.refetch()} />
      ) : roles.data.length === 0 ? (
        <EmptyState title="No custom roles">The built-in roles are owner, admin, member, billing and viewer (read-only).</EmptyState>
      ) : (
        <Table caption="Custom roles" head={["Role", "Permissions", "Members", "Actions"]}>
          {roles.data.map((r) => (
            <RoleRow
              key={r.id}
              role={r}
              mayEdit={manager && within(workspace, r.permissions)}
              onEdit={() => setDraft({ id: r.id, name: r.name, description: r.description ?? "", permissions: r.permissions })}
            />
          ))}
        </Table>
      )}
      {draft ? <RoleForm key={draft.id ?? "new"} draft={draft} onDone={() => setDraft(null)} /> : null}
    </Card>
  );
}
