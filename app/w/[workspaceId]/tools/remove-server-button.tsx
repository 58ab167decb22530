"use client";
// Removing a workspace's MCP server asks for a confirmation in place.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";

export function RemoveServerButton({ name }: { name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.mcp.remove.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.mcp.list.queryKey()) }));
  return (
    <ConfirmInRow
      label="Remove"
      ariaLabel={`Remove the server ${name}`}
      confirmAriaLabel={`Confirm removing the server ${name}`}
      note="Remove it? Its tools are no longer offered at /mcp."
      confirmLabel="Yes, remove"
      busy={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate({ server: name })}
    />
  );
}
