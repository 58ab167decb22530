"use client";
// x402 revenue (operators): whether x402 payments are on, what payers paid per UTC day and per
// model over the last 7, 30 or 90 days, and the latest payments with their state. USD amounts are
// the exact decimal strings the server sends; payment amounts are atomic units of the asset.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, Card, EmptyState, ErrorState, Loading, PageHeader, SelectField, Table, Td } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import type { PaymentRow, X402Overview } from "@/server/admission/x402/revenue";
import { formatCount, formatDateTime, formatUsd } from "../usage/format";
import { RevenueChart } from "./revenue-chart";

const PERIODS = [7, 30, 90] as const;

/** Every decimal place kept (the ledger keeps 18): exact, only grouped for reading. */
const usd = (amount: string) => formatUsd(amount, 18);

/** "0x1234…cdef", the whole value in the title. */
function Short({ value }: { value: string | null }) {
  if (!value) return <>—</>;
  const short = value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
  return (
    <span className="font-mono text-xs" title={value}>
      {short}
    </span>
  );
}

const STATUS_TONE: Record<string, "green" | "red" | "amber" | "slate"> = { settled: "green", failed: "red", released: "slate", verified: "amber", settling: "amber" };

function OperatorsOnly() {
  return (
    <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
      Only gateway operators can see x402 revenue and payments.
    </p>
  );
}

function Status({ overview }: { overview: X402Overview }) {
  if (!overview.enabled) {
    return (
      <Card title={<span className="flex items-center gap-2">x402 is off <Badge>off</Badge></span>}>
        <p className="text-sm text-slate-600">
          This gateway does not accept x402 payments: <code className="font-mono text-xs">X402_NETWORK</code> is not set (see{" "}
          <code className="font-mono text-xs">docs/X402.md</code>). To try it on a local dev chain, start the gateway with{" "}
          <code className="font-mono text-xs">X402_NETWORK=local npm start</code>. Revenue recorded so far is shown below.
        </p>
      </Card>
    );
  }
  return (
    <Card title={<span className="flex items-center gap-2">x402 is on <Badge tone="green">on</Badge></span>}>
      <dl className="grid gap-3 text-sm sm:grid-cols-3">
        {[
          ["Network", overview.network],
          ["Asset", overview.asset],
          ["Pay-to", overview.payTo],
        ].map(([label, value]) => (
          <div key={label}>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
            <dd className="mt-1 break-all font-mono text-xs">{value}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

function Total({ label, value, title }: { label: string; value: string; title?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 break-all text-2xl font-semibold" title={title}>
        {value}
      </dd>
    </div>
  );
}

function Payments({ payments }: { payments: PaymentRow[] }) {
  if (!payments.length) return <EmptyState title="No x402 payments yet." />;
  return (
    <Table caption="Latest x402 payments" head={["Time", "Payer", "Scheme", "Model and endpoint", "Status", "Settled of max", "Transaction"]}>
      {payments.map((p) => (
        <tr key={p.id} data-testid="x402-payment-row" data-payment-id={p.id}>
          <Td className="whitespace-normal">{formatDateTime(p.createdAt)}</Td>
          <Td>
            <Short value={p.payer} />
          </Td>
          <Td>{p.scheme}</Td>
          {/* Model ids and reasons of any length wrap or are cut, rather than widen the table. */}
          <Td className="whitespace-normal wrap-anywhere">
            <div>{p.model}</div>
            <div className="text-xs text-slate-500">{p.endpoint}</div>
          </Td>
          <Td>
            <Badge tone={STATUS_TONE[p.status] ?? "slate"}>{p.status}</Badge>
            {p.errorReason ? (
              <div className="mt-1 max-w-36 truncate text-xs text-red-700" title={p.errorReason}>
                {p.errorReason}
              </div>
            ) : null}
          </Td>
          {/* Atomic units can be long: they wrap rather than widen the table. */}
          <Td className="max-w-40 whitespace-normal break-all font-mono text-xs">
            <div>{p.settledAmount ?? "—"}</div>
            <div className="text-slate-500">of {p.maxAmount}</div>
          </Td>
          <Td>
            <Short value={p.txHash} />
          </Td>
        </tr>
      ))}
    </Table>
  );
}

function Revenue({ overview }: { overview: X402Overview }) {
  return (
    <>
      <section aria-label="Totals">
        <dl className="grid gap-4 sm:grid-cols-3">
          <Total label="Revenue (USD)" value={usd(overview.total)} title={`${overview.total} USD`} />
          <Total label="Calls" value={formatCount(overview.calls)} />
          <Total label="Distinct payers" value={formatCount(overview.payers)} />
        </dl>
      </section>
      {overview.calls === 0 ? (
        <EmptyState title={`No x402 revenue in the last ${overview.days} days.`}>Paid calls show here once their payments are settled.</EmptyState>
      ) : (
        <div className="grid gap-6 xl:grid-cols-2">
          <Card title="Revenue per UTC day">
            <RevenueChart byDay={overview.byDay} />
            <Table caption="Revenue per UTC day" head={["Day", "Calls", "Revenue (USD)"]}>
              {overview.byDay.map((d) => (
                <tr key={d.day} data-testid="x402-day-row">
                  <Td>{d.day}</Td>
                  <Td>{formatCount(d.calls)}</Td>
                  <Td>{usd(d.revenue)}</Td>
                </tr>
              ))}
            </Table>
          </Card>
          <Card title="Revenue per model">
            <Table caption="Revenue per model" head={["Model", "Calls", "Revenue (USD)"]}>
              {overview.byModel.map((m) => (
                <tr key={m.model} data-testid="x402-model-row">
                  <Td className="whitespace-normal break-all">{m.model}</Td>
                  <Td>{formatCount(m.calls)}</Td>
                  <Td>{usd(m.revenue)}</Td>
                </tr>
              ))}
            </Table>
          </Card>
        </div>
      )}
      <section aria-labelledby="x402-payments-title" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
        <h2 id="x402-payments-title" className="mb-4 text-base font-semibold">
          Latest payments
        </h2>
        <Payments payments={overview.payments} />
        <p className="mt-3 text-xs text-slate-500">
          Settled and max (what the payment authorized at most) are in atomic units of the asset. A payment is settled for what its call cost, released when the call failed (nothing is taken), and failed when the chain refused the settlement.
        </p>
      </section>
    </>
  );
}

function X402Admin() {
  const trpc = useTRPC();
  const [days, setDays] = useState<number>(30);
  const overview = useQuery(trpc.x402.overview.queryOptions({ days }));
  const forbidden = (overview.error as { data?: { code?: string } | null } | null)?.data?.code === "FORBIDDEN";
  let body;
  if (forbidden) body = <OperatorsOnly />;
  else if (overview.error) body = <ErrorState error={overview.error} onRetry={() => void overview.refetch()} />;
  else if (overview.isPending) body = <Loading label="Loading x402 revenue…" />;
  else
    body = (
      <>
        <Status overview={overview.data} />
        <Revenue overview={overview.data} />
      </>
    );
  return (
    <div className="flex flex-col gap-6">
      <div className="max-w-48">
        <SelectField label="Period" value={String(days)} onChange={(e) => setDays(Number(e.target.value))}>
          {PERIODS.map((d) => (
            <option key={d} value={d}>
              Last {d} days
            </option>
          ))}
        </SelectField>
      </div>
      {body}
    </div>
  );
}

export default function X402Page() {
  const { session } = useWorkspace();
  return (
    <>
      <PageHeader title="x402 revenue" description="What x402 payers paid (crypto, per call, no account): per UTC day, per model, and the latest payments." />
      {session.user.isOperator ? <X402Admin /> : <OperatorsOnly />}
    </>
  );
}
