"use client";
// A list of the API's shape ({data, has_more, last_id}) read a page at a time: the next page is
// asked for with `after` = the last id shown, so objects created meanwhile never shift the rows.
// tRPC's infiniteQueryOptions wants an input named `cursor`; the /v1 lists call it `after`, so
// the pages are fetched here with the client, under a key inside the procedure's path (the
// procedure's pathKey refreshes them).
import { useInfiniteQuery, type QueryKey } from "@tanstack/react-query";

type Page<T> = { data: T[]; has_more: boolean; last_id: string | null };

export function useAfterPages<T>(opts: {
  queryKey: QueryKey;
  fetchPage: (after: string | undefined) => Promise<Page<T>>;
  /** Milliseconds between refetches while the rows shown call for it (all the loaded pages are fetched again). */
  pollWhile?: (rows: T[]) => number | false;
}) {
  const query = useInfiniteQuery({
    queryKey: opts.queryKey,
    queryFn: ({ pageParam }) => opts.fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: Page<T>) => (last.has_more && last.last_id ? last.last_id : undefined),
    refetchInterval: opts.pollWhile ? (q) => opts.pollWhile!(q.state.data?.pages.flatMap((p) => p.data) ?? []) : undefined,
  });
  const rows = query.data?.pages.flatMap((p) => p.data) ?? [];
  return { query, rows };
}
