"use client";
// The Fine-tuning pages' reads of the API: fine_tuning.jobs.* through tRPC, the same procedures
// as /v1/fine_tuning/jobs. The jobs and a job's events are read a page at a time with `after` =
// the last id shown; the loss chart reads every metrics event, fetching only the new ones on
// each poll (events come newest first, so it stops at the first one it already holds).
import { useQuery } from "@tanstack/react-query";
import { useRef } from "react";
import { useTRPC, useTRPCClient } from "@/app/_trpc/client";
import { useAfterPages } from "../files/use-after-pages";
import type { FtEventView, FtJobView, FtStatus, JobMoney } from "./job-shape";

const POLL_MS = 2000;
const EVENTS_PAGE = 100;
/** A chart reads at most this many pages per poll (10 000 events); older ones stay off the chart. */
const MAX_EVENT_PAGES = 100;

const withLastId = <T extends { id: string }>(page: { data: T[]; has_more: boolean }) => ({ ...page, last_id: page.data.at(-1)?.id ?? null });

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
  const held = useRef<FtEventView[]>([]);
  return useQuery({
    queryKey: [...trpc.fineTuning.events.pathKey(), { input: { fine_tuning_job_id: id }, type: "all" }],
    queryFn: async () => {
      const known = new Set(held.current.map((e) => e.id));
      const fresh: FtEventView[] = [];
      let after: string | undefined;
      for (let page = 0; page < MAX_EVENT_PAGES; page++) {
        const { data, has_more } = await client.fineTuning.events.query({ fine_tuning_job_id: id, limit: EVENTS_PAGE, after });
        const newer = data.findIndex((e) => known.has(e.id));
        fresh.push(...(newer === -1 ? data : data.slice(0, newer)));
        if (newer !== -1 || !has_more || !data.length) break;
        after = data.at(-1)!.id;
      }
      held.current = [...fresh, ...held.current];
      return held.current;
    },
    refetchInterval: live ? POLL_MS : false,
  });
}

export function useCheckpoints(id: string, live: boolean) {
  const trpc = useTRPC();
  return useQuery(trpc.fineTuning.checkpoints.queryOptions({ fine_tuning_job_id: id, limit: 100 }, { refetchInterval: live ? POLL_MS : false }));
}

/** The cost and hold of the jobs shown, by id; polled with them while one of them runs. */
export function useJobMoney(ids: string[], live: boolean): Map<string, JobMoney> {
  const trpc = useTRPC();
  const money = useQuery(trpc.fineTuningMoney.ofJobs.queryOptions({ ids }, { enabled: ids.length > 0, refetchInterval: live ? POLL_MS : false }));
  return new Map((money.data ?? []).map((m) => [m.id, m]));
}
