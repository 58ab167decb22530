"use client";
// Adds a webhook: its URL, the events it wants, and the thresholds of balance.low (USD) and
// spend.threshold (a share of a cap). The server checks all of it again, the URL against the
// outbound policy (public https only, unless the operator allows more).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ALERT_EVENTS, type AlertType } from "@/server/alerts/events";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, TextField } from "@/app/_components/ui";

const LABELS: Record<AlertType, string> = {
  "balance.low": "the balance falls below a threshold",
  "spend.threshold": "a key or end user reaches a share of its cap",
  "budget.exceeded": "a call is refused for a spend cap",
  "node.down": "a node fails its health check",
  "node.up": "a node is back",
  "video.failed": "a video job fails",
  "guardrail.blocked": "a guardrail blocks a call",
};

export function AddWebhookForm({ onCreated }: { onCreated: (created: { url: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<AlertType[]>([]);
  const [balanceBelow, setBalanceBelow] = useState("");
  const [spendPercent, setSpendPercent] = useState("80");
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (hook) => {
        onCreated({ url: hook.url, secret: hook.secret });
        setUrl("");
        setEvents([]);
        setBalanceBelow("");
        void refresh(queryClient, trpc.webhooks.list.queryKey());
      },
    }),
  );
  const toggle = (e: AlertType, on: boolean) => setEvents((old) => (on ? [...old, e] : old.filter((x) => x !== e)));

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({
      url: url.trim(),
      events,
      balance_below: events.includes("balance.low") ? balanceBelow.trim() : null,
      spend_share: events.includes("spend.threshold") ? Number(spendPercent) / 100 : null,
    });
  }

  return (
    <Card title="Add a webhook">
      <form onSubmit={submit} className="flex flex-col gap-4">
        <TextField label="URL" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/gateway-alerts" />
        <fieldset className="flex flex-col gap-2 text-sm">
          <legend className="mb-1 font-medium text-slate-700">Events</legend>
          {ALERT_EVENTS.map((ev) => (
            <label key={ev} className="flex items-center gap-2">
              <input type="checkbox" checked={events.includes(ev)} onChange={(e) => toggle(ev, e.target.checked)} className="size-4" />
              <span>
                <code className="font-mono text-xs">{ev}</code> <span className="text-slate-500">{LABELS[ev]}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          {events.includes("balance.low") ? (
            <TextField label="Balance below (USD)" inputMode="decimal" required value={balanceBelow} onChange={(e) => setBalanceBelow(e.target.value)} placeholder="e.g. 10" />
          ) : null}
          {events.includes("spend.threshold") ? (
            <TextField label="Share of a cap (%)" type="number" min={1} max={100} required value={spendPercent} onChange={(e) => setSpendPercent(e.target.value)} />
          ) : null}
        </div>
        <div>
          <Button type="submit" busy={create.isPending} disabled={!events.length}>
            Add webhook
          </Button>
        </div>
        {create.error ? <ErrorState error={create.error} /> : null}
      </form>
    </Card>
  );
}
