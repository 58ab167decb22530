"use client";
// Operators price the models an Anthropic or Gemini node brought in: those lists give no price,
// and a model without one is not served (never billed at $0).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent } from "react";
import { Button, Card, ErrorState, TextField } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";

type Unpriced = { id: string; displayName: string; type: string; nodes: string[] };
type Prices = { input: string; output: string; cacheRead: string; cacheWrite: string };

function PriceRow({ model }: { model: Unpriced }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [prices, setPrices] = useState<Prices>({ input: "", output: "", cacheRead: "", cacheWrite: "" });
  const price = useMutation(
    trpc.nodes.setPrice.mutationOptions({
      onSuccess: async () => {
        await refresh(queryClient, trpc.nodes.unpricedModels.queryKey());
        await refresh(queryClient, trpc.models.list.queryKey());
      },
    }),
  );
  const set = (key: keyof Prices) => (e: ChangeEvent<HTMLInputElement>) => setPrices({ ...prices, [key]: e.target.value });
  return (
    <form
      aria-label={`Price ${model.id}`}
      className="grid gap-3 border-t border-slate-100 py-3 sm:grid-cols-5"
      onSubmit={(e) => {
        e.preventDefault();
        price.mutate({ model: model.id, input: prices.input, output: prices.output, cacheRead: prices.cacheRead || undefined, cacheWrite: prices.cacheWrite || undefined });
      }}
    >
      <div className="sm:col-span-5">
        <span className="font-mono text-sm">{model.id}</span> <span className="text-xs text-slate-500">{model.type}, from {model.nodes.join(", ") || "no node"}</span>
      </div>
      <TextField label="Input / 1M tokens (USD)" inputMode="decimal" required value={prices.input} onChange={set("input")} placeholder="3" />
      <TextField label="Output / 1M tokens (USD)" inputMode="decimal" required value={prices.output} onChange={set("output")} placeholder="15" />
      <TextField label="Cache read / 1M (USD)" inputMode="decimal" value={prices.cacheRead} onChange={set("cacheRead")} hint="Default: the input price." />
      <TextField label="Cache write / 1M (USD)" inputMode="decimal" value={prices.cacheWrite} onChange={set("cacheWrite")} hint="Default: the input price." />
      <div className="flex items-end">
        <Button type="submit" busy={price.isPending}>
          Set price
        </Button>
      </div>
      {price.error ? (
        <div className="sm:col-span-5">
          <ErrorState error={price.error} />
        </div>
      ) : null}
    </form>
  );
}

export function PriceModels() {
  const trpc = useTRPC();
  const unpriced = useQuery(trpc.nodes.unpricedModels.queryOptions());
  if (!unpriced.data?.length) return null;
  return (
    <Card title="Models waiting for a price">
      <p className="text-sm text-slate-600">
        These models came from a node whose model list gives no prices. They are not served until priced (per 1M tokens, in USD).
      </p>
      {unpriced.data.map((m) => (
        <PriceRow key={m.id} model={m} />
      ))}
    </Card>
  );
}
