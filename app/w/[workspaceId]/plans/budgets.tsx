"use client";
// What keys and end users have spent today and this month (UTC) against their plan's caps.
import { useQuery } from "@tanstack/react-query";
import type { BudgetFigure } from "@/server/ledger/budget-overview";
import { useTRPC } from "@/app/_trpc/client";
import { Card, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { BudgetCell } from "./budget-cell";

type Row = { id: string; label: string; planId: string | null; daily: BudgetFigure; monthly: BudgetFigure };

function BudgetTable({ caption, first, rows, planNames }: { caption: string; first: string; rows: Row[]; planNames: Map<string, string> }) {
  return (
    <Table caption={caption} head={[first, "Plan", "Today", "This month"]}>
      {rows.map((r) => (
        <tr key={r.id} data-testid="budget-row">
          <Td className="font-medium">
            <span className="block max-w-64 truncate" title={r.label}>
              {r.label}
            </span>
          </Td>
          <Td>{r.planId ? (planNames.get(r.planId) ?? r.planId) : <span className="text-slate-500">no alive session</span>}</Td>
          <Td>
            <BudgetCell figure={r.daily} period="today" />
          </Td>
          <Td>
            <BudgetCell figure={r.monthly} period="this month" />
          </Td>
        </tr>
      ))}
    </Table>
  );
}

export function Budgets({ planNames }: { planNames: Map<string, string> }) {
  const trpc = useTRPC();
  const budgets = useQuery(trpc.plans.budgets.queryOptions());
  return (
    <Card title="Budgets">
      {budgets.isPending ? (
        <Loading label="Loading budgets…" />
      ) : budgets.error ? (
        <ErrorState error={budgets.error} onRetry={() => void budgets.refetch()} />
      ) : (
        <div className="flex flex-col gap-6">
          <p className="text-sm text-slate-600">
            Spend on {budgets.data.day} and in {budgets.data.month} (UTC) against the daily and monthly caps of each plan.
          </p>
          <section aria-label="Key budgets" className="flex flex-col gap-2">
            <h3 className="text-sm font-semibold">API keys on a capped plan</h3>
            {budgets.data.keys.length === 0 ? (
              <EmptyState title="No key is on a plan with a cap" />
            ) : (
              <BudgetTable
                caption="Budgets of API keys"
                first="Key"
                planNames={planNames}
                rows={budgets.data.keys.map((k) => ({ id: k.keyId, label: k.name, planId: k.planId, daily: k.daily, monthly: k.monthly }))}
              />
            )}
          </section>
          <section aria-label="Subject budgets" className="flex flex-col gap-2">
            <h3 className="text-sm font-semibold">End users (subjects)</h3>
            {budgets.data.subjects.length === 0 ? (
              <EmptyState title="No subject has spent this month or holds an alive session" />
            ) : (
              <BudgetTable
                caption="Budgets of subjects"
                first="Subject"
                planNames={planNames}
                rows={budgets.data.subjects.map((s) => ({ id: s.subject, label: s.subject, planId: s.planId, daily: s.daily, monthly: s.monthly }))}
              />
            )}
            {budgets.data.subjectsTruncated ? <p className="text-xs text-slate-500">Only the subjects that spent most this month are listed.</p> : null}
          </section>
        </div>
      )}
    </Card>
  );
}
