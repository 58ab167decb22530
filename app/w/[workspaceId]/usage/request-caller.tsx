"use client";
// Who made a request: the end user (subject) of a session token, else the key, else the
// dashboard; beneath it the key or "session token" and the plan. A click on a subject filters the
// page by it.
import type { UsageEventRow } from "@/server/ledger/usage/usage-events";

export function RequestCaller({ e, onSubject }: { e: UsageEventRow; onSubject: (subject: string) => void }) {
  const key = e.key ? `${e.key.name ?? "deleted key"} (${e.key.prefix ?? e.key.id}…)` : null;
  const details = [e.subject ? (key ?? "session token") : null, e.plan ? `plan ${e.plan.name ?? "deleted"}` : null].filter(Boolean).join(" · ");
  return (
    <>
      {e.subject ? (
        <button
          type="button"
          className="block max-w-40 truncate text-left underline decoration-dotted hover:text-indigo-700"
          title={`${e.subject}: show only this end user's requests`}
          onClick={() => onSubject(e.subject!)}
        >
          {e.subject}
        </button>
      ) : (
        <span className="block max-w-40 truncate" title={key ?? undefined}>
          {key ?? "Dashboard"}
        </span>
      )}
      {details ? (
        <span className="block max-w-40 truncate text-xs text-slate-500" title={e.plan ? `${details} (${e.plan.id})` : details}>
          {details}
        </span>
      ) : null}
    </>
  );
}
