"use client";
// Deleting a file asks for a confirmation in its row: the bytes go at once and cannot come back.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";

export function DeleteFileButton({ id, filename }: { id: string; filename: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.files.delete.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.files.list.pathKey()),
    }),
  );
  return (
    <ConfirmInRow
      label="Delete"
      ariaLabel={`Delete ${filename} (${id})`}
      variant="ghost"
      confirmAriaLabel={`Confirm deleting ${filename} (${id})`}
      note="Its content is removed for good."
      confirmLabel="Yes, delete"
      busy={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate({ file_id: id })}
      className="max-w-72 whitespace-normal"
    />
  );
}
