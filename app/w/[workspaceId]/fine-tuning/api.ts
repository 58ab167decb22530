"use client";
// The Fine-tuning pages' reads of the API: fine_tuning.jobs.* through tRPC, the same procedures
// as /v1/fine_tuning/jobs. The jobs and a job's events are read a page at a time with `after` =
// the last id shown; the loss chart reads every metrics event, fetching only the new ones on
// each poll (events come newest first, so it stops at the first one it already holds).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useTRPC, useTRPCClient } from "@/app/_trpc/client";
import { useAfterPages } from "../files/use-after-pages";
import type { FtEventItem, FtJobView, FtStatus, JobMoney } from "./job-shape";

const POLL_MS = 2000;
const EVENTS_PAGE = 100;
/** A chart reads at most this many pages per poll (10 000 events); older ones stay off the chart. */
const MAX_EVENT_PAGES = 100;

const withLastId = <T extends { id: string }>(page: { data: T[]; has_more: boolean }) => ({ ...page, last_id: page.data.at(-1)?.id ?? null });

/**
 * Runs `effect` each time `value` changes from one known value to another ("" is not known yet:
 * the queries fetch when the data first arrives anyway).
 */
export function useOnChange(value: string, effect: () => void) {
  const seen = useRef(value);
  useEffect(() => {
    const before = seen.current;
    if (before === value) return;
    seen.current = value;
    if (before !== "") effect();
  });
}

export function useJobs(pollWhile: (jobs: FtJobView[]) => boolean) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  // The list's query is read as text throughout (its other parameters are `metadata[k]` filters).
  const input = { limit: "20" };
  return useAfterPages({
    queryKey: [...trpc.fineTuning.list.pathKey(), { input, type: "infinite" }],
    fetchPage: async (after) => withLastId(await client.fineTuning.list.query({ ...input, ...(after && { after }) })),
    pollWhile: (jobs) => (pollWhile(jobs) ? POLL_MS : false),
  });
}

export function useJob(id: string, live: (status: FtStatus) => boolean) {
  const trpc = useTRPC();
  return useQuery(trpc.fineTuning.get.queryOptions({ fine_tuning_job_id: id }, { refetchInterval: (q) => (q.state.data && live(q.state.data.status) ? POLL_MS : false) }));
}

export function useEventPages(id: string, live: boolean) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const input = { fine_tuning_job_id: id, limit: 20 };
  return useAfterPages({
    queryKey: [...trpc.fineTuning.events.pathKey(), { input, type: "infinite" }],
    fetchPage: async (after) => withLastId(await client.fineTuning.events.query({ ...input, after })),
    pollWhile: () => (live ? POLL_MS : false),
  });
}

export function useAllEvents(id: string, live: boolean) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const queryKey = [...trpc.fineTuning.events.pathKey(), { input: { fine_tuning_job_id: id }, type: "all" }];
  return useQuery({
    queryKey,
    queryFn: async () => {
      const held = queryClient.getQueryData<FtEventItem[]>(queryKey) ?? [];
      const known = new Set(held.map((e) => e.id));
      const fresh: FtEventItem[] = [];
      let after: string | undefined;
      for (let page = 0; page < MAX_EVENT_PAGES; page++) {
        const { data, has_more } = await client.fineTuning.events.query({ fine_tuning_job_id: id, limit: EVENTS_PAGE, after });
        const newer = data.findIndex((e) => known.has(e.id));
        fresh.push(...(newer === -1 ? data : data.slice(0, newer)));
        if (newer !== -1 || !has_more || !data.length) break;
        after = data.at(-1)!.id;
      }
      return fresh.length ? [...fresh, ...held] : held;
    },
    refetchInterval: live ? POLL_MS : false,
  });
}

export function useCheckpoints(id: string, live: boolean) {
  const trpc = useTRPC();
  return useQuery(trpc.fineTuning.checkpoints.queryOptions({ fine_tuning_job_id: id, limit: 100 }, { refetchInterval: live ? POLL_MS : false }));
}

/**
 * The cost and hold of the jobs shown, by id: polled while one of them runs, and read again when
 * a status changes (a job's cost is written in the same transaction that ends it).
 */
export function useJobMoney(jobs: Pick<FtJobView, "id" | "status">[], live: boolean): Map<string, JobMoney> {
  const trpc = useTRPC();
  const ids = jobs.map((j) => j.id);
  const money = useQuery(trpc.fineTuningMoney.ofJobs.queryOptions({ ids }, { enabled: ids.length > 0, refetchInterval: live ? POLL_MS : false }));
  useOnChange(jobs.map((j) => `${j.id}:${j.status}`).join(","), () => void money.refetch());
  return new Map((money.data ?? []).map((m) => [m.id, m]));
}
