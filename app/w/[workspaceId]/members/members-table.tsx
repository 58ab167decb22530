"use client";
// The member list. Controls appear only where the procedures would allow the change (admins see
// no controls on owners); the procedures check again, so a forged request gets a 403.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Badge, Button, Card, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import type { RoleView } from "@/server/identity/roles/role-schemas";
import type { Member } from "@/server/identity/workspaces/members";
import { can } from "@/server/identity/workspaces/permissions";
import { choiceOf, heldBy, roleChoices, roleInput, within } from "./role-choices";

function MemberRow({ member, customRoles, onChanged }: { member: Member; customRoles: RoleView[]; onChanged: (self: boolean) => void }) {
  const trpc = useTRPC();
  const { workspace, session } = useWorkspace();
  const [confirming, setConfirming] = useState(false);
  const self = member.userId === session.user.id;
  const who = member.name ?? member.email ?? member.userId;
  // Only owners touch owners; anyone else only members whose every permission is theirs too.
  const manageable = can(workspace, "members.manage") && (member.role !== "owner" || workspace.role === "owner") && within(workspace, heldBy(member, customRoles));
  const choices = roleChoices(workspace, customRoles);
  const changeRole = useMutation(trpc.workspaces.changeRole.mutationOptions({ onSuccess: () => onChanged(self) }));
  const remove = useMutation(trpc.workspaces.removeMember.mutationOptions({ onSuccess: () => onChanged(self) }));
  const error = changeRole.error ?? remove.error;

  return (
    <tr>
      <Td>
        <span className="font-medium">{member.name ?? "—"}</span>
        {self ? <span className="ml-2"><Badge tone="indigo">you</Badge></span> : null}
        <span className="block text-xs text-slate-500">{member.email}</span>
        {error ? (
          <span role="alert" className="mt-1 block max-w-xs whitespace-normal text-xs text-red-600">
            {error.message}
          </span>
        ) : null}
      </Td>
      <Td>
        {manageable ? (
          <>
            <label htmlFor={`role-${member.userId}`} className="sr-only">
              Role of {who}
            </label>
            <select
              id={`role-${member.userId}`}
              value={choiceOf(member)}
              disabled={changeRole.isPending}
              onChange={(e) => changeRole.mutate({ userId: member.userId, ...roleInput(e.target.value) })}
              className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
            >
              {choices.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </>
        ) : (
          <Badge tone={member.role === "owner" ? "green" : member.customRole ? "indigo" : "slate"}>{member.customRole?.name ?? member.role}</Badge>
        )}
        {member.active ? null : (
          <span className="ml-2">
            <Badge tone="amber">deactivated</Badge>
          </span>
        )}
      </Td>
      <Td>{new Date(member.joinedAt).toLocaleDateString()}</Td>
      <Td className="text-right">
        {manageable && !self ? (
          confirming ? (
            <span className="inline-flex flex-wrap justify-end gap-2">
              <Button variant="danger" busy={remove.isPending} onClick={() => remove.mutate({ userId: member.userId })}>
                Confirm removal<span className="sr-only"> of {who}</span>
              </Button>
              <Button variant="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
            </span>
          ) : (
            <Button variant="secondary" onClick={() => setConfirming(true)}>
              Remove<span className="sr-only"> {who}</span>
            </Button>
          )
        ) : null}
      </Td>
    </tr>
  );
}

export function MembersTable() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const members = useQuery(trpc.workspaces.members.queryOptions());
  const roles = useQuery(trpc.roles.list.queryOptions());

  function onChanged(self: boolean) {
    void refresh(queryClient, trpc.workspaces.members.queryKey());
    void refresh(queryClient, trpc.workspaces.current.queryKey());
    // The frame shows the caller's role from the server: reload it when that role changed.
    if (self) router.refresh();
  }

  return (
    <Card title="Members">
      {members.isPending ? (
        <Loading label="Loading members…" />
      ) : members.isError ? (
        <ErrorState error={members.error} onRetry={() => void members.refetch()} />
      ) : members.data.length === 0 ? (
        <EmptyState title="No members">This workspace has no members.</EmptyState>
      ) : (
        <Table caption="Workspace members" head={["Member", "Role", "Joined", "Actions"]}>
          {members.data.map((m) => (
            <MemberRow key={m.userId} member={m} customRoles={roles.data ?? []} onChanged={onChanged} />
          ))}
        </Table>
      )}
    </Card>
  );
}
