"use client";
// A job at a glance: status, models, files (the result file to download), hyperparameters, seed,
// tokens, cost, times, and why it failed.
import type { ReactNode } from "react";
import { fileContentHref, formatUnix } from "../../files/file-format";
import type { FtJobView, JobMoney } from "../job-shape";
import { MoneyText } from "../money-text";
import { isLive, JobStatusBadge } from "../job-status";
import { ModelName } from "../model-name";

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-0.5">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="text-sm text-slate-800">{children}</dd>
    </div>
  );
}

function FileLink({ workspaceId, fileId, label }: { workspaceId: string; fileId: string; label: string }) {
  return (
    <a href={fileContentHref(workspaceId, fileId)} download aria-label={label} title={fileId} className="break-all font-mono text-xs text-indigo-700 underline hover:text-indigo-900">
      {fileId}
    </a>
  );
}

const show = (v: number | string | null | undefined) => (v === null || v === undefined ? "—" : String(v));

export function JobSummary({ job, money, workspaceId }: { job: FtJobView; money: JobMoney | undefined; workspaceId: string }) {
  const hp = job.hyperparameters;
  return (
    <div className="flex flex-col gap-4">
      {job.status === "failed" && job.error ? (
        <p role="alert" data-testid="job-error" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {job.error.message}
          <span className="ml-1 font-mono text-xs">
            ({job.error.code}
            {job.error.param ? `, ${job.error.param}` : ""})
          </span>
        </p>
      ) : null}
      <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <Field label="Status">
          <JobStatusBadge status={job.status} />
        </Field>
        <Field label="Base model">
          <code className="text-xs">{job.model}</code>
        </Field>
        <Field label="Fine-tuned model">{job.fine_tuned_model ? <ModelName workspaceId={workspaceId} model={job.fine_tuned_model} /> : <span className="text-slate-400">{isLive(job.status) ? "when it succeeds" : "—"}</span>}</Field>
        <Field label="Training file">
          <FileLink workspaceId={workspaceId} fileId={job.training_file} label={`Download the training file of ${job.id}`} />
        </Field>
        <Field label="Validation file">
          {job.validation_file ? <FileLink workspaceId={workspaceId} fileId={job.validation_file} label={`Download the validation file of ${job.id}`} /> : "—"}
        </Field>
        <Field label="Result file">
          {job.result_files.length ? (
            <span className="flex flex-col gap-1">
              {job.result_files.map((f) => (
                <FileLink key={f} workspaceId={workspaceId} fileId={f} label={`Download the result file of ${job.id}`} />
              ))}
            </span>
          ) : (
            "—"
          )}
        </Field>
        <Field label="Hyperparameters">
          <span data-testid="hyperparameters" className="tabular-nums">
            epochs {show(hp.n_epochs)} · batch size {show(hp.batch_size)} · learning rate × {show(hp.learning_rate_multiplier)}
          </span>
        </Field>
        <Field label="Seed">
          <span className="tabular-nums">{show(job.seed)}</span>
        </Field>
        <Field label="Trained tokens">
          <span data-testid="trained-tokens" className="tabular-nums">
            {job.trained_tokens === null ? "—" : job.trained_tokens.toLocaleString("en-US")}
          </span>
        </Field>
        <Field label="Cost">
          <MoneyText money={money} />
        </Field>
        <Field label="Created">{formatUnix(job.created_at)}</Field>
        <Field label={job.finished_at ? "Finished" : "Estimated finish"}>{formatUnix(job.finished_at ?? job.estimated_finish)}</Field>
        {job.suffix ? (
          <Field label="Suffix">
            <code className="text-xs">{job.suffix}</code>
          </Field>
        ) : null}
        {job.metadata && Object.keys(job.metadata).length ? (
          <Field label="Metadata">
            <span className="flex flex-wrap gap-1">
              {Object.entries(job.metadata).map(([k, v]) => (
                <code key={k} className="rounded bg-slate-100 px-1 text-xs text-slate-700">
                  {k}={v}
                </code>
              ))}
            </span>
          </Field>
        ) : null}
      </dl>
    </div>
  );
}
