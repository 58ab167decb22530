"use client";
// The Logs page's filter lives in the URL (?range=&status=&code=&model=&key=&plan=&subject=&tag=),
// so a filtered view can be bookmarked, shared and reloaded. Changes replace the history entry in
// place (Next.js keeps useSearchParams in step with history.replaceState) with no server round trip.
import { useSearchParams } from "next/navigation";
import { useCallback } from "react";

/** The time range presets, newest calls back to this long ago; "all" is everything still kept. */
export const RANGES = { "1h": { label: "Last hour", ms: 3_600_000 }, "24h": { label: "Last 24 hours", ms: 86_400_000 }, "7d": { label: "Last 7 days", ms: 7 * 86_400_000 }, all: { label: "All kept", ms: null } } as const;
export type Range = keyof typeof RANGES;
export const DEFAULT_RANGE: Range = "24h";

export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

export type LogFilterState = { range: Range; status: StatusClass | ""; code: string; model: string; keyId: string; planId: string; subject: string; tag: string };
type TextFilter = Exclude<keyof LogFilterState, "range" | "status">;

const PARAMS = { range: "range", status: "status", code: "code", model: "model", keyId: "key", planId: "plan", subject: "subject", tag: "tag" } as const satisfies Record<keyof LogFilterState, string>;

const isRange = (v: string | null): v is Range => v !== null && Object.hasOwn(RANGES, v);
const isStatus = (v: string | null): v is StatusClass => (STATUS_CLASSES as readonly (string | null)[]).includes(v);

export function useLogFilter(): [LogFilterState, (next: LogFilterState) => void] {
  const params = useSearchParams();
  const text = (field: TextFilter) => params.get(PARAMS[field]) ?? "";
  const range = params.get(PARAMS.range);
  const status = params.get(PARAMS.status);
  const filter: LogFilterState = {
    range: isRange(range) ? range : DEFAULT_RANGE,
    status: isStatus(status) ? status : "",
    code: text("code"),
    model: text("model"),
    keyId: text("keyId"),
    planId: text("planId"),
    subject: text("subject"),
    tag: text("tag"),
  };
  const setFilter = useCallback((next: LogFilterState) => {
    const query = new URLSearchParams();
    for (const [field, param] of Object.entries(PARAMS) as Array<[keyof LogFilterState, string]>) {
      const value = next[field];
      if (value && !(field === "range" && value === DEFAULT_RANGE)) query.set(param, value);
    }
    const search = query.toString();
    // Not window.history.state: Next.js leaves calls carrying its own state marker unsynced.
    window.history.replaceState(null, "", `${window.location.pathname}${search ? `?${search}` : ""}`);
  }, []);
  return [filter, setFilter];
}

export type LogListInput = { from?: string; status?: StatusClass; code?: string; model?: string; keyId?: string; planId?: string; subject?: string; tag?: string };

/** The filter as procedure input, the range counted back from `now`; empty fields filter nothing. */
export function toInput(f: LogFilterState, now: number): LogListInput {
  const input: LogListInput = {};
  const span = RANGES[f.range].ms;
  if (span !== null) input.from = new Date(now - span).toISOString();
  if (f.status) input.status = f.status;
  for (const field of ["code", "model", "keyId", "planId", "subject", "tag"] as const) if (f[field]) input[field] = f[field];
  return input;
}
