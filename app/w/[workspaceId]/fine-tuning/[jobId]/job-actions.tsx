"use client";
// Cancel, Pause and Resume of a job, each as its status allows. Cancel asks first: training stops,
// the tokens trained so far are billed and the rest of the hold is given back.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { Button, ErrorState } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import type { FtStatus } from "../job-shape";
import { isCancellable, isPausable, isResumable } from "../job-status";

export function JobActions({ id, status }: { id: string; status: FtStatus }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const after = { onSuccess: () => refresh(queryClient, trpc.fineTuning.get.pathKey(), trpc.fineTuning.list.pathKey(), trpc.fineTuning.events.pathKey()) };
  const cancel = useMutation(trpc.fineTuning.cancel.mutationOptions(after));
  const pause = useMutation(trpc.fineTuning.pause.mutationOptions(after));
  const resume = useMutation(trpc.fineTuning.resume.mutationOptions(after));
  const input = { fine_tuning_job_id: id };
  if (!isCancellable(status)) return null;
  return (
    <div className="flex flex-wrap items-start gap-2">
      {isPausable(status) ? (
        <Button variant="secondary" busy={pause.isPending} onClick={() => pause.mutate(input)} aria-label={`Pause ${id}`}>
          Pause
        </Button>
      ) : null}
      {isResumable(status) ? (
        <Button variant="secondary" busy={resume.isPending} onClick={() => resume.mutate(input)} aria-label={`Resume ${id}`}>
          Resume
        </Button>
      ) : null}
      <ConfirmInRow
        label="Cancel"
        ariaLabel={`Cancel ${id}`}
        confirmAriaLabel={`Confirm cancelling ${id}`}
        note="The tokens trained so far are billed; the rest of the hold is given back."
        confirmLabel="Yes, cancel job"
        busy={cancel.isPending}
        error={cancel.error}
        onConfirm={() => cancel.mutate(input)}
        className="max-w-md"
      />
      <ErrorState error={pause.error ?? resume.error} />
    </div>
  );
}
