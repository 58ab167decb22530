"use client";
// The usage page's filter lives in the URL (?key=&plan=&subject=&tag=&group=&from=&to=), so a filtered view
// can be bookmarked, shared and reloaded. Changes replace the history entry in place (Next.js
// keeps useSearchParams in step with history.replaceState) without a round trip to the server.
import { useSearchParams } from "next/navigation";
import { useCallback } from "react";

export type UsageFilterState = { apiKeyId: string; planId: string; subject: string; tag: string; groupByTag: string; from: string; to: string };

const PARAMS = {
  apiKeyId: "key",
  planId: "plan",
  subject: "subject",
  tag: "tag",
  groupByTag: "group",
  from: "from",
  to: "to",
} as const satisfies Record<keyof UsageFilterState, string>;

export function useUsageFilter(): [UsageFilterState, (next: UsageFilterState) => void] {
  const params = useSearchParams();
  const filter: UsageFilterState = {
    apiKeyId: params.get(PARAMS.apiKeyId) ?? "",
    planId: params.get(PARAMS.planId) ?? "",
    subject: params.get(PARAMS.subject) ?? "",
    tag: params.get(PARAMS.tag) ?? "",
    groupByTag: params.get(PARAMS.groupByTag) ?? "",
    from: params.get(PARAMS.from) ?? "",
    to: params.get(PARAMS.to) ?? "",
  };
  const setFilter = useCallback((next: UsageFilterState) => {
    const query = new URLSearchParams();
    for (const [field, param] of Object.entries(PARAMS) as Array<[keyof UsageFilterState, string]>) if (next[field]) query.set(param, next[field]);
    const search = query.toString();
    // Not window.history.state: Next.js leaves calls carrying its own state marker unsynced.
    window.history.replaceState(null, "", `${window.location.pathname}${search ? `?${search}` : ""}`);
  }, []);
  return [filter, setFilter];
}
