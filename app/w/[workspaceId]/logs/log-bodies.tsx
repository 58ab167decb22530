"use client";
// A logged call's request and answer in the detail panel, when they were captured (owners and
// admins: bodies hold what callers sent), with "Open in playground" to send a chat request again.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { LogEntry } from "@/server/request-log/list-logs";
import { ErrorState, Loading } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { replayDraft, replayHref } from "../playground/replay";

const CHAT_ROUTE = "/v1/chat/completions";

const linkClass = "font-medium text-indigo-700 underline hover:text-indigo-500";

function pretty(text: string | null, truncated: boolean): string {
  if (text === null) return "(none)";
  if (truncated) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function Body({ label, text, bytes, truncated }: { label: string; text: string | null; bytes: number; truncated: boolean }) {
  const cut = truncated && text !== null && new TextEncoder().encode(text).length < bytes;
  return (
    <figure className="mt-2">
      <figcaption className="text-xs font-medium text-slate-600">
        {label} {text !== null ? `(${bytes.toLocaleString()} bytes${cut ? ", cut at the workspace's cap" : ""})` : null}
      </figcaption>
      <pre aria-label={label} className="mt-1 max-h-72 overflow-auto rounded bg-slate-50 p-2 text-xs whitespace-pre-wrap break-all">
        {pretty(text, cut)}
      </pre>
    </figure>
  );
}

export function LogBodies({ entry }: { entry: LogEntry }) {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const manager = may(workspace, "logs.bodies");
  const body = useQuery({ ...trpc.logs.body.queryOptions({ requestId: entry.request_id, createdAt: new Date(entry.created_at) }), enabled: entry.captured && manager });
  const chat = entry.route === CHAT_ROUTE && entry.model;
  const draft = body.data ? replayDraft(body.data.request) : null;

  if (!entry.captured) {
    return (
      <>
        <p className="text-sm text-slate-600">
          Bodies were not captured for this call.{" "}
          {manager ? (
            <>
              Turn capture on in <Link href={`/w/${workspace.id}/settings`} className={linkClass}>Settings</Link> (or for one key) to keep them.
            </>
          ) : null}
        </p>
        {chat ? (
          <p className="mt-2 text-sm text-slate-600">
            <Link href={`/w/${workspace.id}/playground?model=${encodeURIComponent(entry.model!)}`} className={linkClass}>
              Open in playground
            </Link>{" "}
            to try <code>{entry.model}</code> again; write the prompt there.
          </p>
        ) : null}
      </>
    );
  }
  if (!manager) return <p className="text-sm text-slate-600">Bodies were captured for this call; owners and admins can read them.</p>;
  if (body.error) return <ErrorState error={body.error} onRetry={() => void body.refetch()} />;
  if (!body.data) return <Loading label="Loading the bodies…" />;
  return (
    <div>
      {chat ? (
        draft ? (
          <p className="text-sm">
            <Link href={replayHref(workspace.id, entry.request_id, entry.created_at, entry.model!)} className={linkClass}>
              Open in playground
            </Link>{" "}
            <span className="text-slate-600">with this conversation, to send it again.</span>
          </p>
        ) : (
          <p className="text-sm text-slate-600">The request was cut at the workspace&apos;s cap, so it cannot be replayed.</p>
        )
      ) : null}
      <Body label="Request" text={body.data.request} bytes={body.data.request_bytes} truncated={body.data.truncated} />
      <Body label="Answer" text={body.data.response} bytes={body.data.response_bytes} truncated={body.data.truncated} />
    </div>
  );
}
