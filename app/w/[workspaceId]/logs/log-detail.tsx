"use client";
// One logged call in a side panel (a modal <dialog>: focus moves into it, Escape closes it): every
// field of its row and its timings, the gateway's own share among them, and its request and answer
// when they were captured (log-bodies.tsx).
import { useEffect, useRef, type ReactNode } from "react";
import type { KeyView } from "@/server/identity/keys/key-view";
import type { LogEntry } from "@/server/request-log/list-logs";
import { Button } from "@/app/_components/ui";
import { formatCount, formatUsd } from "../usage/format";
import { LogBodies } from "./log-bodies";
import { credentialKind, formatMs, keyLabel, overheadMs } from "./log-format";
import { StatusBadge } from "./status-badge";

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_minmax(0,1fr)] gap-2 py-1.5">
      <dt className="text-slate-500">{label}</dt>
      <dd className="break-words">{children ?? "—"}</dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="border-t border-slate-200 pt-3">
      <h3 className="mb-1 text-sm font-semibold">{title}</h3>
      {children}
    </section>
  );
}

function Timings({ e }: { e: LogEntry }) {
  const overhead = overheadMs(e);
  return (
    <dl className="text-sm">
      <Field label="Total">{formatMs(e.duration_ms)}</Field>
      <Field label="Upstream">{e.upstream_ms === null ? "— (no node was called)" : formatMs(e.upstream_ms)}</Field>
      <Field label="First byte">{formatMs(e.first_byte_ms)}</Field>
      <Field label="Gateway overhead">{overhead === null ? "—" : `${formatMs(overhead)} (total − upstream)`}</Field>
    </dl>
  );
}

export function LogDetail({ entry, keys, onClose }: { entry: LogEntry | null; keys: KeyView[]; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (entry && !d.open) d.showModal();
    if (!entry && d.open) d.close();
  }, [entry]);
  const e = entry;
  const c = e?.credential;
  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby="log-detail-title"
      className="fixed inset-y-0 right-0 left-auto m-0 h-full max-h-none w-full max-w-xl overflow-y-auto border-l border-slate-200 bg-white p-6 shadow-xl backdrop:bg-slate-900/30"
    >
      {e && c ? (
        <div className="flex flex-col gap-4">
          <header className="flex items-start justify-between gap-4">
            <div>
              <h2 id="log-detail-title" className="text-lg font-semibold">
                Request details
              </h2>
              <code className="text-xs break-all text-slate-500">{e.request_id}</code>
            </div>
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
          </header>
          <dl className="text-sm">
            <Field label="Time">
              <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" })}</time>{" "}
              <span className="text-xs text-slate-500">{e.created_at}</span>
            </Field>
            <Field label="Status">
              <StatusBadge status={e.status} code={e.error_code} />
            </Field>
            <Field label="Route">
              <code>
                {e.method} {e.route}
              </code>
            </Field>
            <Field label="Model">{e.model}</Field>
            <Field label="Node">{e.node_id}</Field>
            <Field label="Cache">{e.cache}</Field>
          </dl>
          <Section title="Timings">
            <Timings e={e} />
          </Section>
          <Section title="Caller">
            <dl className="text-sm">
              <Field label="Credential">{credentialKind(c.kind)}</Field>
              <Field label="Key">{c.key_id ? keyLabel(c.key_id, keys) : null}</Field>
              <Field label="Plan">{c.plan_id}</Field>
              <Field label="Subject">{c.subject}</Field>
              <Field label="x402 payer">{c.payer}</Field>
              <Field label="Client address">{e.client_ip}</Field>
              <Field label="User agent">{e.user_agent}</Field>
            </dl>
          </Section>
          <Section title="Usage">
            <dl className="text-sm">
              <Field label="Input tokens">{formatCount(e.input_tokens)}</Field>
              <Field label="Output tokens">
                {formatCount(e.output_tokens)}
                {e.usage_estimated ? <span className="text-xs text-slate-500"> (counted by the gateway: the node reported none)</span> : null}
              </Field>
              <Field label="Cost">{e.cost === null ? "Not charged" : `${formatUsd(e.cost, 12)} (${e.cost} USD)`}</Field>
              <Field label="Tags">
                {Object.keys(e.tags).length ? (
                  <code className="text-xs">
                    {Object.entries(e.tags)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(", ")}
                  </code>
                ) : null}
              </Field>
            </dl>
          </Section>
          <Section title="Request and answer">
            <LogBodies entry={e} />
          </Section>
        </div>
      ) : null}
    </dialog>
  );
}
