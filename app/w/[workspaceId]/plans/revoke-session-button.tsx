"use client";
// Revokes one session after a confirmation in the row; its token is refused at once.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, ErrorState } from "@/app/_components/ui";

export function RevokeSessionButton({ id, subject }: { id: string; subject: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation(trpc.plans.revokeSession.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.plans.pathKey()) }));
  if (!confirming) {
    return (
      <Button variant="secondary" onClick={() => setConfirming(true)} aria-label={`Revoke the session of ${subject}`}>
        Revoke
      </Button>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-label={`Confirm revoking the session of ${subject}`}>
      <Button variant="danger" busy={revoke.isPending} onClick={() => revoke.mutate({ id })}>
        Yes, revoke
      </Button>
      <Button variant="ghost" onClick={() => setConfirming(false)} disabled={revoke.isPending}>
        Cancel
      </Button>
      {revoke.error ? <ErrorState error={revoke.error} /> : null}
    </div>
  );
}
