"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Button, Card, ErrorState } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import type { NodeView } from "@/server/routing/nodes/node-view";
import { NodeFields, type NodeFieldValues } from "./node-fields";

/**
 * Edits a node. Only changed fields are sent: a new URL or key makes the server list the node's
 * models again before it saves anything.
 */
export function EditNodePanel({ node, onDone }: { node: NodeView; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const initial: NodeFieldValues = { name: node.name, url: node.baseUrl, wire: node.wire as NodeFieldValues["wire"], apiKey: "", city: node.region.city, country: node.region.country, weight: String(node.weight) };
  const [values, setValues] = useState(initial);
  const [enabled, setEnabled] = useState(node.enabled);
  const [removeKey, setRemoveKey] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // The panel opens below the table: take keyboard focus there, and show it.
  useEffect(() => {
    form.current?.querySelector("input")?.focus();
    form.current?.scrollIntoView({ block: "nearest" });
  }, []);
  const update = useMutation(
    trpc.nodes.update.mutationOptions({
      onSuccess: async () => {
        await refresh(queryClient, trpc.nodes.list.queryKey());
        await refresh(queryClient, trpc.models.list.queryKey());
        onDone();
      },
    }),
  );
  const changed = <K extends keyof NodeFieldValues>(key: K) => (values[key].trim() !== initial[key] ? values[key].trim() : undefined);
  return (
    <Card title={`Edit ${node.name}`}>
      <form
        ref={form}
        aria-label={`Edit ${node.name}`}
        className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3"
        onSubmit={(e) => {
          e.preventDefault();
          const weight = changed("weight");
          update.mutate({
            id: node.id,
            name: changed("name"),
            url: changed("url"),
            apiKey: removeKey ? null : values.apiKey || undefined,
            city: changed("city"),
            country: changed("country"),
            weight: weight === undefined ? undefined : Number(weight),
            enabled: enabled === node.enabled ? undefined : enabled,
          });
        }}
      >
        <NodeFields values={values} onChange={setValues} apiKeyHint={node.hasApiKey ? "A key is set; leave blank to keep it. A new URL needs the key again." : "No key is set."} />
        <div className="flex flex-col gap-2 text-sm sm:col-span-2 lg:col-span-3">
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} className="size-4" />
            Enabled (takes traffic)
          </label>
          {node.hasApiKey ? (
            <label className="flex items-center gap-2">
              <input type="checkbox" checked={removeKey} onChange={(e) => setRemoveKey(e.target.checked)} className="size-4" />
              Remove the API key
            </label>
          ) : null}
        </div>
        <div className="flex gap-2 sm:col-span-2 lg:col-span-3">
          <Button type="submit" busy={update.isPending}>
            Save changes
          </Button>
          <Button variant="secondary" onClick={onDone}>
            Cancel
          </Button>
        </div>
      </form>
      {update.error ? (
        <div className="mt-4">
          <ErrorState error={update.error} />
        </div>
      ) : null}
    </Card>
  );
}
