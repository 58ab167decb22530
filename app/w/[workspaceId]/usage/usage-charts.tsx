"use client";
// The usage charts (recharts). They render only in the browser, once data has arrived. Values are
// turned into numbers for plotting only; every figure shown as text comes from the exact strings.
// Each chart has a heading, a short description and its data as a table for screen readers.
import type { ReactElement, ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { UsageSummary } from "@/server/ledger/usage/usage-summary";
import { Card, Table, Td } from "@/app/_components/ui";
import { formatCount, formatUsd, usdAxis, usdTooltip } from "./format";

const HEIGHT = 260;

function ChartCard({ id, title, description, children, table }: { id: string; title: string; description: string; children: ReactElement; table: ReactNode }) {
  return (
    <Card>
      <figure aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`} className="flex flex-col gap-2">
        <h2 id={`${id}-title`} className="text-base font-semibold">
          {title}
        </h2>
        <p id={`${id}-desc`} className="text-xs text-slate-500">
          {description}
        </p>
        <div style={{ height: HEIGHT }} aria-hidden>
          <ResponsiveContainer width="100%" height={HEIGHT}>
            {children}
          </ResponsiveContainer>
        </div>
        <details className="text-sm">
          <summary className="cursor-pointer text-slate-600">Show the data as a table</summary>
          <div className="mt-2 max-h-64 overflow-y-auto">{table}</div>
        </details>
      </figure>
    </Card>
  );
}

/** The tooltip of a bar whose data carries its exact amount (`exact`). */
const exactTooltip = (value: unknown, _name: unknown, item: { payload?: { exact?: string } }) => usdTooltip(item?.payload?.exact, value);
const widest = (values: number[]) => Math.max(0, ...values);

export function UsageCharts({ summary }: { summary: UsageSummary }) {
  const days = summary.days.map((d) => ({ day: d.day.slice(5), cost: Number(d.cost), exact: d.cost, input: d.inputTokens, output: d.outputTokens }));
  const models = summary.models.map((m) => ({ model: m.modelId, cost: Number(m.cost), exact: m.cost }));
  return (
    <div className="grid gap-6 xl:grid-cols-2">
      <ChartCard
        id="cost-per-day"
        title="Cost per day"
        description={`USD charged each UTC day from ${summary.from} to ${summary.to}.`}
        table={
          <Table caption="Cost per day" head={["Day", "Cost", "Requests"]}>
            {summary.days.map((d) => (
              <tr key={d.day}>
                <Td>{d.day}</Td>
                <Td>{formatUsd(d.cost)}</Td>
                <Td>{formatCount(d.requests)}</Td>
              </tr>
            ))}
          </Table>
        }
      >
        <BarChart data={days}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" fontSize={12} />
          <YAxis tickFormatter={usdAxis(widest(days.map((d) => d.cost)))} fontSize={12} width={80} />
          <Tooltip formatter={exactTooltip} />
          <Bar dataKey="cost" name="Cost (USD)" fill="#4f46e5" />
        </BarChart>
      </ChartCard>
      <ChartCard
        id="tokens-per-day"
        title="Tokens per day"
        description={`Input and output tokens each UTC day from ${summary.from} to ${summary.to}.`}
        table={
          <Table caption="Tokens per day" head={["Day", "Input tokens", "Output tokens"]}>
            {summary.days.map((d) => (
              <tr key={d.day}>
                <Td>{d.day}</Td>
                <Td>{formatCount(d.inputTokens)}</Td>
                <Td>{formatCount(d.outputTokens)}</Td>
              </tr>
            ))}
          </Table>
        }
      >
        <BarChart data={days}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" fontSize={12} />
          <YAxis fontSize={12} width={80} allowDecimals={false} tickFormatter={formatCount} />
          <Tooltip />
          <Legend />
          <Bar dataKey="input" name="Input tokens" stackId="tokens" fill="#0ea5e9" />
          <Bar dataKey="output" name="Output tokens" stackId="tokens" fill="#f59e0b" />
        </BarChart>
      </ChartCard>
      <ChartCard
        id="cost-per-model"
        title="Cost per model"
        description="USD charged per model over the selected range, most expensive first."
        table={
          <Table caption="Cost per model" head={["Model", "Cost", "Requests"]}>
            {summary.models.map((m) => (
              <tr key={m.modelId}>
                <Td>{m.modelId}</Td>
                <Td>{formatUsd(m.cost)}</Td>
                <Td>{formatCount(m.requests)}</Td>
              </tr>
            ))}
          </Table>
        }
      >
        <BarChart data={models}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="model" fontSize={12} />
          <YAxis tickFormatter={usdAxis(widest(models.map((m) => m.cost)))} fontSize={12} width={80} />
          <Tooltip formatter={exactTooltip} />
          <Bar dataKey="cost" name="Cost (USD)" fill="#16a34a" />
        </BarChart>
      </ChartCard>
    </div>
  );
}
