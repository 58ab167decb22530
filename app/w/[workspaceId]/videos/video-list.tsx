"use client";
import { useQuery } from "@tanstack/react-query";
import { Card, EmptyState, ErrorState, Loading } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { VideoJobCard } from "./video-job-card";

/** The workspace's jobs, newest first, polled every second while any of them is still rendering. */
export function VideoList({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const jobs = useQuery(
    trpc.videos.list.queryOptions(
      { limit: 50 },
      {
        refetchInterval: (q) => (q.state.data?.data.some((j) => j.status === "queued" || j.status === "in_progress") ? 1000 : false),
      },
    ),
  );
  let body;
  if (jobs.error) body = <ErrorState error={jobs.error} onRetry={() => void jobs.refetch()} />;
  else if (jobs.isLoading) body = <Loading label="Loading videos…" />;
  else if (!jobs.data?.data.length) body = <EmptyState title="No videos yet.">Videos created here or through the API appear in this list.</EmptyState>;
  else
    body = (
      <ul aria-label="Video jobs" className="flex flex-col gap-3">
        {jobs.data.data.map((job) => (
          <VideoJobCard key={job.id} job={job} workspaceId={workspaceId} />
        ))}
      </ul>
    );
  return <Card title="Your videos">{body}</Card>;
}
