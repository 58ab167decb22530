"use client";
// One fine-tuning job: its summary and actions, the loss chart, checkpoints and events, followed
// every 2 s while the job has not ended.
import Link from "next/link";
import { useParams } from "next/navigation";
import { Card, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { useAllEvents, useJob, useJobMoney, useOnChange } from "../api";
import { isLive } from "../job-status";
import { CheckpointsCard } from "./checkpoints-card";
import { EventsCard } from "./events-card";
import { JobActions } from "./job-actions";
import { JobSummary } from "./job-summary";
import { LossChart } from "./loss-chart";

function LossCard({ jobId, live }: { jobId: string; live: boolean }) {
  const events = useAllEvents(jobId, live);
  let body;
  if (events.error) body = <ErrorState error={events.error} onRetry={() => void events.refetch()} />;
  else if (events.isPending) body = <Loading label="Loading the loss…" />;
  else body = <LossChart events={events.data} />;
  return <Card title="Loss">{body}</Card>;
}

export default function FineTuningJobPage() {
  const { workspace } = useWorkspace();
  const jobId = decodeURIComponent(useParams<{ jobId: string }>().jobId);
  const job = useJob(jobId, isLive);
  // Cancelling, pausing and resuming change what the workspace pays for: the roles that may call models may.
  const canAct = may(workspace, "models.call");
  const live = job.data ? isLive(job.data.status) : false;
  const money = useJobMoney(job.data ? [job.data] : [], live).get(jobId);
  // The events and checkpoints that came with a change of status (the last ones of a job that
  // ended, after which nothing polls) are read again.
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useOnChange(job.data?.status ?? "", () => void refresh(queryClient, trpc.fineTuning.events.pathKey(), trpc.fineTuning.checkpoints.pathKey()));
  const back = (
    <Link href={`/w/${workspace.id}/fine-tuning`} className="text-sm font-medium text-indigo-700 underline hover:text-indigo-900">
      All jobs
    </Link>
  );

  if (job.error) {
    return (
      <>
        <PageHeader title="Fine-tuning job" actions={back} />
        <ErrorState error={job.error} onRetry={() => void job.refetch()} />
      </>
    );
  }
  if (!job.data) return <Loading label="Loading the job…" />;
  return (
    <>
      <PageHeader title={`Fine-tuning job ${job.data.id}`} description={`${job.data.model} trained on ${job.data.training_file}`} actions={back} />
      <div className="flex flex-col gap-6">
        <Card title="Job" actions={canAct ? <JobActions id={job.data.id} status={job.data.status} /> : null}>
          <JobSummary job={job.data} money={money} workspaceId={workspace.id} />
        </Card>
        <LossCard jobId={jobId} live={live} />
        <CheckpointsCard jobId={jobId} workspaceId={workspace.id} live={live} />
        <EventsCard jobId={jobId} live={live} />
      </div>
    </>
  );
}
