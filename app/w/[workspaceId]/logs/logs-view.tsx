"use client";
// Logs: every /v1 call of the workspace, served, refused or failed, newest first, with the
// filters kept in the URL and one call's details in a side panel.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { LogEntry } from "@/server/request-log/list-logs";
import { Button, Card, PageHeader } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { LogDetail } from "./log-detail";
import { LogFilters } from "./log-filters";
import { LogsTable } from "./logs-table";
import { toInput, useLogFilter, type LogFilterState } from "./use-log-filter";

export function LogsView() {
  const trpc = useTRPC();
  const [filter, setFilter] = useLogFilter();
  // The time range counts back from this moment, fixed until the filter changes or "Refresh", so
  // the pages already loaded keep one query.
  const [now, setNow] = useState(() => Date.now());
  const [open, setOpen] = useState<LogEntry | null>(null);
  const keys = useQuery(trpc.keys.list.queryOptions());
  const plans = useQuery(trpc.plans.list.queryOptions());
  const input = toInput(filter, now);
  const change = (next: LogFilterState) => {
    setFilter(next);
    setNow(Date.now());
  };

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Logs"
        description="Every API call of this workspace, served, refused or failed, newest first. A call shows here a moment after it is answered."
        actions={
          <Button variant="secondary" onClick={() => setNow(Date.now())}>
            Refresh
          </Button>
        }
      />
      <Card>
        <LogFilters value={filter} onChange={change} keys={keys.data ?? []} plans={plans.data ?? []} />
        {keys.error ? <p className="mt-2 text-xs text-red-700">Could not load the keys: {keys.error.message}</p> : null}
        {plans.error ? <p className="mt-2 text-xs text-red-700">Could not load the plans: {plans.error.message}</p> : null}
      </Card>
      <Card>
        <LogsTable filter={input} keys={keys.data ?? []} onOpen={setOpen} />
      </Card>
      <LogDetail entry={open} keys={keys.data ?? []} onClose={() => setOpen(null)} />
    </div>
  );
}
