"use client";
// The workspace's keys. Revoking asks for a confirmation in the row itself (no browser dialog),
// and the button is shown only to those the server lets revoke the key; owners and admins switch
// a key's plan in its row.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Decimal from "decimal.js";
import type { KeyView } from "@/server/identity/keys/key-view";
import { can } from "@/server/identity/workspaces/permissions";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { useWorkspace } from "@/app/_components/workspace-context";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { Badge, Table, Td } from "@/app/_components/ui";
import { formatDate, formatDateTime, formatUsd } from "../usage/format";
import { KeyPermissionsCell } from "./key-permissions-cell";
import { KeyCaptureCell } from "./key-capture-cell";
import { KeyPlanCell, type PlanOption } from "./key-plan-cell";

function status(key: KeyView): { label: string; tone: "green" | "red" | "amber" } {
  if (key.revokedAt) return { label: "revoked", tone: "red" };
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= Date.now()) return { label: "expired", tone: "amber" };
  if (key.spendLimit !== null && new Decimal(key.spent).gte(key.spendLimit)) return { label: "limit reached", tone: "amber" };
  return { label: "active", tone: "green" };
}

/** A date over its time, so the column stays narrow; "Never" when unset. */
function When({ iso }: { iso: string | null }) {
  if (!iso) return <>Never</>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatDate(iso)}
      <span className="block text-xs text-slate-500">{new Date(iso).toLocaleTimeString(undefined, { timeStyle: "short" })}</span>
    </time>
  );
}

function RevokeCell({ keyView }: { keyView: KeyView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.keys.list.queryKey()),
    }),
  );
  return (
    <ConfirmInRow
      label="Revoke"
      ariaLabel={`Revoke ${keyView.name}`}
      confirmAriaLabel={`Confirm revoking ${keyView.name}`}
      note="Revoke this key? Calls with it fail at once."
      confirmLabel="Yes, revoke"
      busy={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutate({ id: keyView.id })}
      className="max-w-60 whitespace-normal"
    />
  );
}

export function KeysTable({ keys, plans }: { keys: KeyView[]; plans: PlanOption[] }) {
  const { workspace, session } = useWorkspace();
  const mayRevoke = (k: KeyView) =>
    !k.revokedAt && (can(workspace, "keys.manage") || (can(workspace, "keys.create") && k.createdById === session.user.id));
  const mayChangePlan = (k: KeyView) => !k.revokedAt && can(workspace, "keys.manage");
  return (
    <Table caption="API keys of this workspace" head={["Name", "Created", "Last used", "Expires", "Spend", "Plan and permissions", "Status", "Actions"]}>
      {keys.map((k) => {
        const s = status(k);
        return (
          <tr key={k.id}>
            <Td>
              <span className="block max-w-48 truncate font-medium" title={k.name}>
                {k.name}
              </span>
              <code className="font-mono text-xs text-slate-500">{k.prefix}…</code>
            </Td>
            <Td>
              {formatDate(k.createdAt)}
              <span className="block max-w-36 truncate text-xs text-slate-500" title={k.createdBy?.email ?? undefined}>
                {k.createdBy ? `by ${k.createdBy.name ?? k.createdBy.email}` : "by —"}
              </span>
            </Td>
            <Td>
              <When iso={k.lastUsedAt} />
            </Td>
            <Td>
              <When iso={k.expiresAt} />
            </Td>
            <Td>
              <span title={`${k.spent} USD spent${k.spendLimit ? ` of ${k.spendLimit}` : ""}`}>
                {formatUsd(k.spent)}
                <span className="block text-xs text-slate-500">{k.spendLimit ? `of ${formatUsd(k.spendLimit)}` : "no limit"}</span>
              </span>
            </Td>
            <Td>
              <KeyPlanCell keyView={k} plans={plans} mayChange={mayChangePlan(k)} />
              <KeyPermissionsCell keyView={k} />
              <KeyCaptureCell keyView={k} mayChange={!k.revokedAt && can(workspace, "logs.bodies")} />
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
