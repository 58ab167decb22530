"use client";
// Ends every session of one end user in the workspace, whatever their plan.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, ErrorState, TextField } from "@/app/_components/ui";

export function RevokeSubjectForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [subject, setSubject] = useState("");
  const revoke = useMutation(
    trpc.plans.revokeSubject.mutationOptions({
      onSuccess: async () => {
        setSubject("");
        await refresh(queryClient, trpc.plans.pathKey());
      },
    }),
  );
  function submit(e: FormEvent) {
    e.preventDefault();
    if (subject.trim()) revoke.mutate({ subject: subject.trim() });
  }
  return (
    <form onSubmit={submit} aria-label="Revoke all sessions of a subject" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-2">
        <TextField
          label="Revoke every session of a subject"
          required
          maxLength={256}
          value={subject}
          onChange={(e) => setSubject(e.target.value)}
          placeholder="end user id"
          className="min-w-0 flex-1"
        />
        <Button type="submit" variant="danger" busy={revoke.isPending}>
          Revoke all
        </Button>
      </div>
      <p aria-live="polite" className="text-xs text-slate-600">
        {revoke.data
          ? `${revoke.data.revoked} session${revoke.data.revoked === 1 ? "" : "s"} of “${revoke.data.subject}” revoked.`
          : "Under every plan of the workspace; their tokens are refused at once."}
      </p>
      {revoke.error ? <ErrorState error={revoke.error} /> : null}
    </form>
  );
}
