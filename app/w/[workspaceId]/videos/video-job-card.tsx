import { Badge } from "@/app/_components/ui";
import type { VideoJobObject } from "@/server/inference/videos/video-object";

const TONE = { queued: "slate", in_progress: "indigo", completed: "green", failed: "red" } as const;
const LABEL = { queued: "Queued", in_progress: "In progress", completed: "Completed", failed: "Failed" } as const;

export function VideoJobCard({ job, workspaceId }: { job: VideoJobObject; workspaceId: string }) {
  const src = `/api/videos/${encodeURIComponent(job.id)}/content?workspaceId=${encodeURIComponent(workspaceId)}`;
  const running = job.status === "queued" || job.status === "in_progress";
  return (
    <li data-testid="video-job" data-video-id={job.id} data-status={job.status} className="rounded-lg border border-slate-200 p-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="font-mono text-xs text-slate-500">{job.id}</p>
          <p className="mt-1 line-clamp-2 text-sm font-medium" title={job.prompt}>
            {job.prompt}
          </p>
          <p className="mt-1 text-xs text-slate-500">
            {job.model} · {job.seconds} s · {job.size} · {job.fps} fps · {new Date(job.created_at * 1000).toLocaleString()}
            {job.status === "completed" ? ` · cost $${job.cost}` : ""}
          </p>
        </div>
        <Badge tone={TONE[job.status]}>{LABEL[job.status]}</Badge>
      </div>
      {running ? (
        <div className="mt-3">
          <div
            role="progressbar"
            aria-label={`Progress of ${job.id}`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={job.progress}
            className="h-2 overflow-hidden rounded-full bg-slate-200"
          >
            <div className="h-full bg-indigo-600 transition-[width]" style={{ width: `${job.progress}%` }} />
          </div>
          <p className="mt-1 text-xs text-slate-500">{job.progress}%</p>
        </div>
      ) : null}
      {job.status === "completed" ? (
        <div className="mt-3 flex flex-col gap-2">
          <video controls preload="metadata" src={src} aria-label={`Video ${job.id}`} className="w-full max-w-xl rounded-md bg-black" />
          <a href={`${src}&download=1`} download className="self-start text-sm font-medium text-indigo-700 underline hover:text-indigo-900">
            Download
          </a>
        </div>
      ) : null}
      {job.status === "failed" ? (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {job.error?.message ?? "The render failed."}
          {job.error?.code ? <span className="ml-1 font-mono text-xs">({job.error.code})</span> : null}
        </p>
      ) : null}
    </li>
  );
}
