"use client";
// Deleting a plan asks for a confirmation in the row: its sessions end, its keys lose it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, ErrorState } from "@/app/_components/ui";

export function DeletePlanButton({ id, name }: { id: string; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.plans.delete.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.plans.pathKey(), trpc.keys.list.queryKey()),
    }),
  );
  if (!confirming) {
    return (
      <Button variant="ghost" onClick={() => setConfirming(true)} aria-label={`Delete ${name}`}>
        Delete
      </Button>
    );
  }
  return (
    <div className="flex max-w-64 flex-wrap items-center gap-2 whitespace-normal" role="group" aria-label={`Confirm deleting ${name}`}>
      <span className="text-xs text-slate-600">Its sessions end; its keys get the defaults.</span>
      <Button variant="danger" busy={remove.isPending} onClick={() => remove.mutate({ id })}>
        Yes, delete
      </Button>
      <Button variant="ghost" onClick={() => setConfirming(false)} disabled={remove.isPending}>
        Cancel
      </Button>
      {remove.error ? <ErrorState error={remove.error} /> : null}
    </div>
  );
}
