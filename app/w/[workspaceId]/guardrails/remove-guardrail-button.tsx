"use client";
// Removing a workspace's guardrail (with its attachments) asks for a confirmation in place.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";

export function RemoveGuardrailButton({ name }: { name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.guardrails.remove.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.guardrails.list.queryKey()) }));
  return (
    <ConfirmInRow
      label="Remove"
      ariaLabel={`Remove the guardrail ${name}`}
      confirmAriaLabel={`Confirm removing the guardrail ${name}`}
      note="Remove it and its attachments? Calls are no longer checked by it."
      confirmLabel="Yes, remove"
      busy={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate({ name })}
    />
  );
}
