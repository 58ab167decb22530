"use client";
// The catalog with prices and video ranges. models.list carries the public model objects only
// (as /v1/models does); the details come from models.get, one per model, which the batching
// link sends as one request.
import { useQueries, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import type { ModelDetail, ModelType } from "@/server/routing/catalog/model-card";

export type ModelDetailsState = {
  models: ModelDetail[];
  isLoading: boolean;
  error: { message: string } | null;
  refetch: () => void;
};

export function useModelDetails(type?: ModelType): ModelDetailsState {
  const trpc = useTRPC();
  const list = useQuery(trpc.models.list.queryOptions());
  const ids = (list.data?.data ?? []).filter((m) => !type || m.type === type).map((m) => m.id);
  const details = useQueries({ queries: ids.map((id) => trpc.models.get.queryOptions({ id })) });
  const failed = details.find((d) => d.error)?.error ?? null;
  return {
    models: details.flatMap((d) => (d.data ? [d.data] : [])),
    isLoading: list.isLoading || details.some((d) => d.isLoading),
    error: list.error ?? failed,
    refetch: () => {
      void list.refetch();
      for (const d of details) if (d.error) void d.refetch();
    },
  };
}
