"use client";
// Deleting a plan asks for a confirmation in the row: its sessions end, its keys lose it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";

export function DeletePlanButton({ id, name }: { id: string; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.plans.delete.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.plans.pathKey(), trpc.keys.list.queryKey()),
    }),
  );
  return (
    <ConfirmInRow
      label="Delete"
      ariaLabel={`Delete ${name}`}
      variant="ghost"
      confirmAriaLabel={`Confirm deleting ${name}`}
      note="Its sessions end; its keys get the defaults."
      confirmLabel="Yes, delete"
      busy={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate({ id })}
      className="max-w-64 whitespace-normal"
    />
  );
}
