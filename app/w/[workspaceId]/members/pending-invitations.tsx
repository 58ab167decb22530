"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Badge, Button, Card, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { can } from "@/server/identity/workspaces/permissions";

function PendingInvitationsCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invitations = useQuery(trpc.workspaces.invitations.queryOptions());
  const revoke = useMutation(
    trpc.workspaces.revokeInvitation.mutationOptions({
      onSettled: () => void refresh(queryClient, trpc.workspaces.invitations.queryKey()),
    }),
  );

  return (
    <Card title="Pending invitations">
      {invitations.isPending ? (
        <Loading label="Loading invitations…" />
      ) : invitations.isError ? (
        <ErrorState error={invitations.error} onRetry={() => void invitations.refetch()} />
      ) : invitations.data.length === 0 ? (
        <EmptyState title="No pending invitations">Invitations you create appear here until they are accepted, revoked or expire.</EmptyState>
      ) : (
        <>
          <ErrorState error={revoke.error} />
          <Table caption="Pending invitations" head={["For", "Role", "Invited by", "Expires", "Actions"]}>
            {invitations.data.map((inv) => (
              <tr key={inv.id}>
                <Td>{inv.email ?? <span className="text-slate-500">Anyone with the link</span>}</Td>
                <Td>
                  <Badge>{inv.customRole ?? inv.role}</Badge>
                </Td>
                <Td>{inv.invitedBy ?? "—"}</Td>
                <Td>{new Date(inv.expiresAt).toLocaleString()}</Td>
                <Td className="text-right">
                  <Button
                    variant="secondary"
                    busy={revoke.isPending && revoke.variables?.id === inv.id}
                    onClick={() => revoke.mutate({ id: inv.id })}
                  >
                    Revoke<span className="sr-only"> invitation {inv.email ?? "link"} ({inv.customRole ?? inv.role})</span>
                  </Button>
                </Td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </Card>
  );
}

/** Only for roles that manage members: the list itself is refused to the others. */
export function PendingInvitations() {
  const { workspace } = useWorkspace();
  return can(workspace, "members.manage") ? <PendingInvitationsCard /> : null;
}
