"use client";
// Billing: the balance, the ledger of credits and charges, and (operators only) adding credits.
// Roles without billing.view get a message instead of the data; the server refuses them anyway.
import { useQuery } from "@tanstack/react-query";
import { can } from "@/server/identity/workspaces/permissions";
import { useTRPC } from "@/app/_trpc/client";
import { roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Card, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { formatUsd } from "../usage/format";
import { AddCreditsForm } from "./add-credits-form";
import { CreditsHelpForm, CreditsHelpNotice } from "./credits-help";
import { LedgerTable } from "./ledger-table";

function Figure({ label, amount, hint }: { label: string; amount: string; hint?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums" title={`${amount} USD`}>
        {formatUsd(amount)}
      </dd>
      {hint ? <dd className="mt-1 text-xs text-slate-500">{hint}</dd> : null}
    </div>
  );
}

/** Whether an exact decimal string is above zero (read from the string, not through a float). */
const positive = (amount: string) => !amount.startsWith("-") && /[1-9]/.test(amount);

function Overview() {
  const trpc = useTRPC();
  const overview = useQuery(trpc.billing.overview.queryOptions());
  if (overview.isPending) return <Loading label="Loading the balance…" />;
  if (overview.error) return <ErrorState error={overview.error} onRetry={() => void overview.refetch()} />;
  const o = overview.data;
  const empty = !positive(o.balance);
  return (
    <>
    {empty ? <CreditsHelpNotice neverFunded={!positive(o.creditsTotal)} /> : null}
    <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4" aria-label="Balance">
      <Figure label="Balance" amount={o.balance} hint="Calls are refused once it reaches zero." />
      <Figure label="Credits added" amount={o.creditsTotal} />
      <Figure label="Charged for calls" amount={o.chargesTotal} />
      <Figure label="Held for running videos" amount={o.reservedTotal} hint="Settled when the jobs finish." />
    </dl>
    </>
  );
}

export default function BillingPage() {
  const { workspace, session } = useWorkspace();
  const mayView = can(workspace, "billing.view");
  return (
    <div className="flex flex-col gap-6">
      <PageHeader title="Billing" description="The workspace's balance and every credit and charge, in USD." />
      {mayView ? (
        <>
          <Overview />
          <Card title="Ledger">
            <LedgerTable />
          </Card>
        </>
      ) : (
        <ErrorState error={{ message: `Your role (${roleName(workspace)}) cannot see billing. Owners, admins and billing members can.` }} />
      )}
      {session.user.isOperator ? <AddCreditsForm workspaceId={workspace.id} /> : null}
      {session.user.isOperator ? <CreditsHelpForm /> : null}
    </div>
  );
}
