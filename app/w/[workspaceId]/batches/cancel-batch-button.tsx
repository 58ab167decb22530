"use client";
// Cancelling a batch asks for a confirmation in its row: no further line runs; the lines already
// done stay in its output and are billed.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";

export function CancelBatchButton({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const cancel = useMutation(
    trpc.batches.cancel.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.batches.list.pathKey()),
    }),
  );
  return (
    <ConfirmInRow
      label="Cancel"
      ariaLabel={`Cancel ${id}`}
      variant="ghost"
      confirmAriaLabel={`Confirm cancelling ${id}`}
      note="Lines already run are kept and billed."
      confirmLabel="Yes, cancel batch"
      busy={cancel.isPending}
      error={cancel.error}
      onConfirm={() => cancel.mutate({ id })}
      className="max-w-56 whitespace-normal"
    />
  );
}
