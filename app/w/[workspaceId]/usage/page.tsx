"use client";
// Usage: totals, charts per day and per model, the cost per value of a tag key, the recent
// requests and a CSV export, for a key, a plan, an end user (subject), a tag and a range of UTC
// days, all kept in the URL.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { useWorkspace } from "@/app/_components/workspace-context";
import { Card, EmptyState, ErrorState, Loading, PageHeader, Table, Td } from "@/app/_components/ui";
import type { UsageSummary } from "@/server/ledger/usage/usage-summary";
import { CacheSavings } from "./cache-savings";
import { formatCount, formatUsd } from "./format";
import { RecentRequests } from "./recent-requests";
import { UsageCharts } from "./usage-charts";
import { useUsageFilter } from "./use-usage-filter";
import { toInput, UsageFilters } from "./usage-filters";

function Total({ label, value, title }: { label: string; value: string; title?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold" title={title}>
        {value}
      </dd>
    </div>
  );
}

function TagGroups({ tagKey, groups }: { tagKey: string; groups: NonNullable<UsageSummary["tagGroups"]> }) {
  return (
    <Card title={`Cost by ${tagKey}`}>
      <Table caption={`Cost by tag ${tagKey}`} head={[tagKey, "Cost", "Requests", "Tokens"]}>
        {groups.map((g) => (
          <tr key={g.value ?? ""} data-testid="tag-group">
            <Td>{g.value ?? <span className="text-slate-500">(no {tagKey})</span>}</Td>
            <Td>
              <span title={`${g.cost} USD`}>{formatUsd(g.cost)}</span>
            </Td>
            <Td>{formatCount(g.requests)}</Td>
            <Td>{formatCount(g.inputTokens + g.outputTokens)}</Td>
          </tr>
        ))}
      </Table>
    </Card>
  );
}

export default function UsagePage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const [filter, setFilter] = useUsageFilter();
  const input = toInput(filter);
  const keys = useQuery(trpc.keys.list.queryOptions());
  const plans = useQuery(trpc.plans.list.queryOptions());
  const summary = useQuery(trpc.usage.summary.queryOptions({ ...input, ...(filter.groupByTag && { groupByTag: filter.groupByTag }) }));
  const exportParams = new URLSearchParams({ workspaceId: workspace.id });
  if (input.from) exportParams.set("from", input.from);
  if (input.to) exportParams.set("to", input.to);
  if (input.apiKeyId) exportParams.set("keyId", input.apiKeyId);
  if (input.planId) exportParams.set("planId", input.planId);
  if (input.subject) exportParams.set("subject", input.subject);
  if (input.tag) exportParams.set("tag", input.tag);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Usage"
        description="What this workspace's calls cost, per UTC day and per model."
        actions={
          <a
            href={`/api/usage/export?${exportParams}`}
            download
            className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium shadow-sm hover:bg-slate-50"
          >
            Export CSV
          </a>
        }
      />
      <Card>
        <UsageFilters value={filter} onChange={setFilter} keys={keys.data ?? []} plans={plans.data ?? []} />
        {keys.error ? <p className="mt-2 text-xs text-red-700">Could not load the keys: {keys.error.message}</p> : null}
        {plans.error ? <p className="mt-2 text-xs text-red-700">Could not load the plans: {plans.error.message}</p> : null}
      </Card>
      {summary.isPending ? (
        <Loading label="Loading usage…" />
      ) : summary.error ? (
        <ErrorState error={summary.error} onRetry={() => void summary.refetch()} />
      ) : (
        <>
          <section aria-label="Totals">
            <p className="mb-2 text-sm text-slate-600">
              {summary.data.from} to {summary.data.to} (UTC)
            </p>
            <dl className="grid gap-4 sm:grid-cols-3">
              <Total label="Cost" value={formatUsd(summary.data.totals.cost)} title={`${summary.data.totals.cost} USD`} />
              <Total label="Requests" value={formatCount(summary.data.totals.requests)} />
              <Total
                label="Tokens"
                value={formatCount(summary.data.totals.inputTokens + summary.data.totals.outputTokens)}
                title={`${formatCount(summary.data.totals.inputTokens)} input, ${formatCount(summary.data.totals.outputTokens)} output`}
              />
            </dl>
          </section>
          {summary.data.totals.requests === 0 ? (
            <EmptyState title="No usage in this range">Make a call with one of this workspace&apos;s API keys and it shows here.</EmptyState>
          ) : (
            <UsageCharts summary={summary.data} />
          )}
          {summary.data.tagGroups ? <TagGroups tagKey={filter.groupByTag} groups={summary.data.tagGroups} /> : null}
          {summary.data.totals.cacheHits > 0 ? <CacheSavings summary={summary.data} /> : null}
        </>
      )}
      <section aria-labelledby="recent-requests-title" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
        <h2 id="recent-requests-title" className="mb-4 text-base font-semibold">
          Recent requests
        </h2>
        <RecentRequests key={JSON.stringify(input)} filter={input} onSubject={(subject) => setFilter({ ...filter, subject })} />
        <p className="mt-3 text-xs text-slate-500">
          Only billed (successful) calls are listed here; refused and failed calls cost nothing and are on the Logs page.
        </p>
      </section>
    </div>
  );
}
