"use client";
// Starts a fine-tuning job through fine_tuning.jobs.create, the procedure behind
// POST /v1/fine_tuning/jobs: the same checks, the same hold on the balance. The base models
// offered are the tunable ones, the files those of the workspace with the purpose `fine-tune`.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button, Card, EmptyState, ErrorState, Loading, SelectField, TextField } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { jobHref } from "./job-row";
import type { useTunableModels } from "./use-tunable-models";

type Tunable = ReturnType<typeof useTunableModels>;

export function NewJobForm({ workspaceId, tunable }: { workspaceId: string; tunable: Tunable }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const files = useQuery(trpc.files.list.queryOptions({ purpose: "fine-tune", limit: 200, order: "desc" }));
  const [picked, setPicked] = useState("");
  const [trainingFile, setTrainingFile] = useState("");
  const [validationFile, setValidationFile] = useState("");
  const [suffix, setSuffix] = useState("");
  const [epochs, setEpochs] = useState("");
  const model = tunable.models.find((m) => m.id === picked) ?? tunable.models.find((m) => m.ready_now) ?? tunable.models[0];
  const fileRows = files.data?.data ?? [];
  const training = fileRows.some((f) => f.id === trainingFile) ? trainingFile : (fileRows[0]?.id ?? "");
  const create = useMutation(
    trpc.fineTuning.create.mutationOptions({
      onSuccess: async (job) => {
        await refresh(queryClient, trpc.fineTuning.list.pathKey());
        router.push(jobHref(workspaceId, job.id));
      },
    }),
  );

  let body;
  if (tunable.error || files.error) body = <ErrorState error={tunable.error ?? files.error} onRetry={() => (tunable.refetch(), void files.refetch())} />;
  else if (tunable.isLoading || files.isLoading) body = <Loading label="Loading models and files…" />;
  else if (!model) body = <EmptyState title="No model of the catalog can be fine-tuned." />;
  else if (!fileRows.length)
    body = <EmptyState title="No fine-tune file yet.">Upload a JSONL file of chat examples with the purpose fine-tune (POST /v1/files), then start a job here.</EmptyState>;
  else
    body = (
      <form
        aria-label="New fine-tuning job"
        className="grid gap-4 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({
            model: model.id,
            training_file: training,
            validation_file: validationFile || undefined,
            suffix: suffix.trim() || undefined,
            method: { type: "supervised", supervised: { hyperparameters: { n_epochs: epochs ? Number(epochs) : "auto" } } },
          });
        }}
      >
        <SelectField label="Base model" value={model.id} onChange={(e) => setPicked(e.target.value)}>
          {tunable.models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
              {m.ready_now ? "" : " (no node online)"}
            </option>
          ))}
        </SelectField>
        <SelectField label="Training file" value={training} onChange={(e) => setTrainingFile(e.target.value)}>
          {fileRows.map((f) => (
            <option key={f.id} value={f.id}>
              {f.filename} ({f.id})
            </option>
          ))}
        </SelectField>
        <SelectField label="Validation file" value={validationFile} onChange={(e) => setValidationFile(e.target.value)} hint="Optional: its loss is charted beside the training loss.">
          <option value="">None</option>
          {fileRows
            .filter((f) => f.id !== training)
            .map((f) => (
              <option key={f.id} value={f.id}>
                {f.filename} ({f.id})
              </option>
            ))}
        </SelectField>
        <TextField label="Suffix" value={suffix} onChange={(e) => setSuffix(e.target.value)} maxLength={64} pattern="[A-Za-z0-9_\-]*" hint="Up to 64 letters, digits, - or _; part of the tuned model's name." />
        <TextField
          label="Epochs"
          type="number"
          inputMode="numeric"
          min={1}
          max={50}
          step={1}
          value={epochs}
          placeholder="auto"
          onChange={(e) => setEpochs(e.target.value)}
          hint="Empty: chosen from the number of examples."
        />
        <div className="flex items-end justify-end">
          <Button type="submit" busy={create.isPending} disabled={!training}>
            Start fine-tuning
          </Button>
        </div>
        {create.error ? (
          <div className="sm:col-span-2">
            <ErrorState error={create.error} />
          </div>
        ) : null}
      </form>
    );
  return <Card title="New fine-tuning job">{body}</Card>;
}
