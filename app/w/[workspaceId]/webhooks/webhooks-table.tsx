"use client";
// The workspace's webhooks: events, thresholds, and per webhook its recent deliveries, rotate the
// secret, remove (confirmed in the row).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { WebhookView } from "@/server/alerts/webhooks";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { Button, Card, ErrorState } from "@/app/_components/ui";
import { DeliveriesTable } from "./deliveries-table";

function WebhookCard({ hook, onRotated }: { hook: WebhookView; onRotated: (s: { url: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.webhooks.list.queryKey()) }));
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions({ onSuccess: (h) => onRotated({ url: h.url, secret: h.secret }) }));
  const thresholds = [
    hook.balance_below !== null ? `balance below ${hook.balance_below} USD` : null,
    hook.spend_share !== null ? `${Math.round(hook.spend_share * 1000) / 10}% of a cap` : null,
  ].filter(Boolean);
  return (
    <Card
      title={<span className="break-all font-mono text-sm">{hook.url}</span>}
      actions={
        <div className="flex flex-wrap items-center gap-2">
          <Button variant="secondary" onClick={() => setOpen(!open)} aria-expanded={open}>
            {open ? "Hide deliveries" : "Deliveries"}
          </Button>
          <Button variant="secondary" busy={rotate.isPending} onClick={() => rotate.mutate({ id: hook.id })}>
            Rotate secret
          </Button>
          <ConfirmInRow
            label="Remove"
            ariaLabel={`Remove the webhook ${hook.url}`}
            confirmAriaLabel={`Confirm removing the webhook ${hook.url}`}
            note="Remove this webhook? Its pending deliveries stop."
            confirmLabel="Yes, remove"
            busy={remove.isPending}
            error={remove.error}
            onConfirm={() => remove.mutate({ id: hook.id })}
          />
        </div>
      }
    >
      <p className="text-sm text-slate-700">
        {hook.events.map((e) => (
          <code key={e} className="mr-2 font-mono text-xs">
            {e}
          </code>
        ))}
        {thresholds.length ? <span className="text-slate-500">({thresholds.join("; ")})</span> : null}
      </p>
      {rotate.error ? <ErrorState error={rotate.error} /> : null}
      {open ? <DeliveriesTable webhookId={hook.id} /> : null}
    </Card>
  );
}

export function WebhooksTable({ hooks, onRotated }: { hooks: WebhookView[]; onRotated: (s: { url: string; secret: string }) => void }) {
  return (
    <div className="flex flex-col gap-4">
      {hooks.map((h) => (
        <WebhookCard key={h.id} hook={h} onRotated={onRotated} />
      ))}
    </div>
  );
}
