"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, Button, ErrorState, Table, Td } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import type { NodeView } from "@/server/routing/nodes/node-view";

const TONE = { online: "green", offline: "red", unknown: "slate" } as const;

function RemoveControl({ node }: { node: NodeView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.nodes.remove.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.nodes.list.queryKey()),
    }),
  );
  if (!confirming) {
    return (
      <Button variant="ghost" aria-label={`Remove ${node.name}`} onClick={() => setConfirming(true)}>
        Remove
      </Button>
    );
  }
  return (
    <div role="group" aria-label={`Confirm removal of ${node.name}`} className="flex flex-wrap items-center gap-1">
      <span className="text-xs text-slate-600">Remove {node.name}?</span>
      <Button variant="danger" busy={remove.isPending} onClick={() => remove.mutate({ id: node.id })}>
        Confirm removal
      </Button>
      <Button variant="secondary" onClick={() => setConfirming(false)}>
        Cancel
      </Button>
      {remove.error ? <ErrorState error={remove.error} /> : null}
    </div>
  );
}

export function NodeTable({ nodes, onEdit }: { nodes: NodeView[]; onEdit: (node: NodeView) => void }) {
  return (
    <Table caption="Nodes" head={["Node", "Region", "Status", "Latency", "Last checked", "Models served", "Enabled", "Actions"]}>
      {nodes.map((n) => (
        <tr key={n.id} data-testid="node-row" data-node-id={n.id}>
          <Td>
            <div className="font-medium">
              {n.name} <span className="ml-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-normal text-slate-600" data-testid="node-wire">{n.wire}</span>
            </div>
            <div className="max-w-64 truncate font-mono text-xs text-slate-500" title={n.baseUrl}>
              {n.baseUrl}
            </div>
            {n.cloud ? (
              <div className="text-xs text-slate-500" data-testid="node-cloud">
                {Object.entries(n.cloud)
                  .map(([k, v]) => `${k} ${v === true ? "yes" : String(v)}`)
                  .join(" · ")}
                {n.hasCredentials ? " · credentials set" : ""}
              </div>
            ) : null}
          </Td>
          <Td>
            {n.region.city}, {n.region.country}
          </Td>
          <Td>
            <Badge tone={TONE[n.status as keyof typeof TONE] ?? "slate"}>{n.status}</Badge>
            {n.lastError ? (
              <div className="mt-1 max-w-56 truncate text-xs text-red-700" title={n.lastError}>
                {n.lastError}
              </div>
            ) : null}
          </Td>
          <Td>{n.lastLatencyMs === null ? "—" : `${n.lastLatencyMs} ms`}</Td>
          <Td>{n.lastHealthCheckAt ? new Date(n.lastHealthCheckAt).toLocaleTimeString() : "never"}</Td>
          <Td>
            {n.models.length ? (
              <ul aria-label={`Models served by ${n.name}`} className="flex max-w-72 flex-wrap gap-1 whitespace-normal">
                {n.models.map((m) => (
                  <li key={m.model}>
                    <Badge>{m.model === m.upstreamModel ? m.model : `${m.model} → ${m.upstreamModel}`}</Badge>
                  </li>
                ))}
              </ul>
            ) : (
              "—"
            )}
          </Td>
          <Td>{n.enabled ? <Badge tone="green">yes</Badge> : <Badge tone="amber">disabled</Badge>}</Td>
          <Td>
            <div className="flex flex-wrap items-center gap-1">
              <Button variant="secondary" aria-label={`Edit ${n.name}`} onClick={() => onEdit(n)}>
                Edit
              </Button>
              <RemoveControl node={n} />
            </div>
          </Td>
        </tr>
      ))}
    </Table>
  );
}
