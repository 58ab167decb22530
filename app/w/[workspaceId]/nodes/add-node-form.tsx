"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Card, ErrorState } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { CloudFields, cloudInput, EMPTY_CLOUD, isCloud, type CloudFieldValues } from "./cloud-fields";
import { EMPTY_NODE, NodeFields, type NodeFieldValues } from "./node-fields";

/** Adds a node: the server asks it which models it serves and links those in the catalog. */
export function AddNodeForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<NodeFieldValues>(EMPTY_NODE);
  const [cloud, setCloud] = useState<CloudFieldValues>(EMPTY_CLOUD);
  const create = useMutation(
    trpc.nodes.create.mutationOptions({
      onSuccess: async () => {
        setValues(EMPTY_NODE);
        setCloud(EMPTY_CLOUD);
        await refresh(queryClient, trpc.nodes.list.queryKey());
        await refresh(queryClient, trpc.models.list.queryKey());
        await refresh(queryClient, trpc.nodes.unpricedModels.queryKey());
      },
    }),
  );
  const added = create.data;
  return (
    <Card title="Add node">
      <form
        aria-label="Add node"
        className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({
            name: values.name.trim(),
            url: values.url.trim() || undefined,
            wire: values.wire,
            ...(isCloud(values.wire) ? cloudInput(values.wire, cloud) : {}),
            apiKey: values.apiKey || undefined,
            city: values.city.trim(),
            country: values.country.trim(),
            weight: Number(values.weight) || 1,
          });
        }}
      >
        <NodeFields values={values} onChange={setValues} showWire apiKeyHint="Sent by the gateway to the node; stored encrypted and never shown again." />
        {isCloud(values.wire) ? <CloudFields wire={values.wire} values={cloud} onChange={setCloud} /> : null}
        <div className="flex items-end sm:col-span-2 lg:col-span-3">
          <Button type="submit" busy={create.isPending}>
            Add node
          </Button>
        </div>
      </form>
      <div className="mt-4" aria-live="polite">
        {create.error ? <ErrorState error={create.error} /> : null}
        {added ? (
          <p role="status" className="rounded-md border border-green-200 bg-green-50 px-4 py-3 text-sm text-green-900">
            Added {added.node.name}.{" "}
            {added.discoveryError
              ? `It did not list its models (${added.discoveryError}); it serves nothing until it is edited with a reachable URL.`
              : `It lists ${added.discovered} model(s); serving ${added.node.models.map((m) => m.model).join(", ") || "none of the catalog's"}.`}
            {added.importedModels.length ? ` Added to the catalog: ${added.importedModels.join(", ")}.` : ""}
          </p>
        ) : null}
      </div>
    </Card>
  );
}
