"use client";
// The base models this workspace may fine-tune: chat models whose card says `fine_tunable`
// (a model tuned already is not a base).
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";

export function useTunableModels() {
  const trpc = useTRPC();
  const list = useQuery(trpc.models.list.queryOptions());
  return {
    models: (list.data?.data ?? []).filter((m) => m.type === "chat" && m.fine_tunable && !m.fine_tuned_from && !m.deprecated),
    isLoading: list.isLoading,
    error: list.error,
    refetch: () => void list.refetch(),
  };
}
