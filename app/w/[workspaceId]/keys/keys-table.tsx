"use client";
// The workspace's keys. Revoking asks for a confirmation in the row itself (no browser dialog),
// and the button is shown only to those the server lets revoke the key.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Decimal from "decimal.js";
import { useState } from "react";
import type { KeyView } from "@/server/identity/keys/key-view";
import { can } from "@/server/identity/workspaces/permissions";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { useWorkspace } from "@/app/_components/workspace-context";
import { Badge, Button, ErrorState, Table, Td } from "@/app/_components/ui";
import { formatDate, formatDateTime, formatUsd } from "../usage/format";

function status(key: KeyView): { label: string; tone: "green" | "red" | "amber" } {
  if (key.revokedAt) return { label: "revoked", tone: "red" };
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= Date.now()) return { label: "expired", tone: "amber" };
  if (key.spendLimit !== null && new Decimal(key.spent).gte(key.spendLimit)) return { label: "limit reached", tone: "amber" };
  return { label: "active", tone: "green" };
}

function RevokeCell({ keyView }: { keyView: KeyView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.keys.list.queryKey()),
    }),
  );
  if (!confirming) {
    return (
      <Button variant="secondary" onClick={() => setConfirming(true)} aria-label={`Revoke ${keyView.name}`}>
        Revoke
      </Button>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-label={`Confirm revoking ${keyView.name}`}>
      <span className="text-xs text-slate-600">Revoke this key? Calls with it fail at once.</span>
      <Button variant="danger" busy={revoke.isPending} onClick={() => revoke.mutate({ id: keyView.id })}>
        Yes, revoke
      </Button>
      <Button variant="ghost" onClick={() => setConfirming(false)} disabled={revoke.isPending}>
        Cancel
      </Button>
      {revoke.error ? <ErrorState error={revoke.error} /> : null}
    </div>
  );
}

export function KeysTable({ keys }: { keys: KeyView[] }) {
  const { workspace, session } = useWorkspace();
  const mayRevoke = (k: KeyView) =>
    !k.revokedAt && (can(workspace.role, "keys.manage") || (can(workspace.role, "keys.create") && k.createdById === session.user.id));
  return (
    <Table caption="API keys of this workspace" head={["Name", "Key", "Created by", "Created", "Last used", "Expires", "Spend", "Status", "Actions"]}>
      {keys.map((k) => {
        const s = status(k);
        return (
          <tr key={k.id}>
            <Td className="font-medium">{k.name}</Td>
            <Td>
              <code className="font-mono text-xs">{k.prefix}…</code>
            </Td>
            <Td>{k.createdBy ? (k.createdBy.name ?? k.createdBy.email) : "—"}</Td>
            <Td>{formatDate(k.createdAt)}</Td>
            <Td>{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"}</Td>
            <Td>{k.expiresAt ? formatDateTime(k.expiresAt) : "Never"}</Td>
            <Td>
              <span title={`${k.spent} USD spent${k.spendLimit ? ` of ${k.spendLimit}` : ""}`}>
                {formatUsd(k.spent)} / {k.spendLimit ? formatUsd(k.spendLimit) : "no limit"}
              </span>
            </Td>
            <Td>
              <Badge tone={s.tone}>{s.label}</Badge>
            </Td>
            <Td>{mayRevoke(k) ? <RevokeCell keyView={k} /> : null}</Td>
          </tr>
        );
      })}
    </Table>
  );
}
