"use client";
// One fine-tuning job in the list: its id (opening the job), base model, status, when it was
// created, the tokens trained, the cost, and the tuned model once it exists.
import Link from "next/link";
import { Td } from "@/app/_components/ui";
import { formatUnix, formatUnixDate, formatUnixTime, isoOf } from "../files/file-format";
import type { FtJobView, JobMoney } from "./job-shape";
import { MoneyText } from "./money-text";
import { JobStatusBadge } from "./job-status";
import { ModelName } from "./model-name";

export const JOB_COLUMNS = ["Job", "Base model", "Status", "Created", "Tokens", "Cost", "Tuned model"];

export const jobHref = (workspaceId: string, id: string) => `/w/${workspaceId}/fine-tuning/${encodeURIComponent(id)}`;

export function JobRow({ job, money, workspaceId }: { job: FtJobView; money: JobMoney | undefined; workspaceId: string }) {
  return (
    <tr data-testid="job-row" data-job-id={job.id} data-status={job.status} className="hover:bg-slate-50">
      <Td>
        <Link href={jobHref(workspaceId, job.id)} className="font-mono text-xs font-medium text-indigo-700 underline hover:text-indigo-900">
          {job.id}
        </Link>
        {job.suffix ? <span className="block text-xs text-slate-500">suffix {job.suffix}</span> : null}
      </Td>
      <Td>
        <code className="text-xs">{job.model}</code>
      </Td>
      <Td>
        <JobStatusBadge status={job.status} />
      </Td>
      <Td>
        <time dateTime={isoOf(job.created_at)} title={formatUnix(job.created_at)} className="flex flex-col">
          <span>{formatUnixDate(job.created_at)}</span>
          <span className="text-xs text-slate-500">{formatUnixTime(job.created_at)}</span>
        </time>
      </Td>
      <Td className="tabular-nums">
        <span data-testid="trained-tokens">{job.trained_tokens === null ? "—" : job.trained_tokens.toLocaleString("en-US")}</span>
      </Td>
      <Td className="tabular-nums">
        <MoneyText money={money} />
      </Td>
      <Td className="min-w-48 whitespace-normal">
        {job.fine_tuned_model ? <ModelName workspaceId={workspaceId} model={job.fine_tuned_model} /> : <span className="text-slate-400">—</span>}
      </Td>
    </tr>
  );
}
