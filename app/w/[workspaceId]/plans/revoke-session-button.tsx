"use client";
// Revokes one session after a confirmation in the row; its token is refused at once.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";

export function RevokeSessionButton({ id, subject }: { id: string; subject: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(trpc.plans.revokeSession.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.plans.pathKey()) }));
  return (
    <ConfirmInRow
      label="Revoke"
      ariaLabel={`Revoke the session of ${subject}`}
      confirmAriaLabel={`Confirm revoking the session of ${subject}`}
      confirmLabel="Yes, revoke"
      busy={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutate({ id })}
    />
  );
}
