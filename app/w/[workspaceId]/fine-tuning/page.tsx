"use client";
import { PageHeader } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { JobList } from "./job-list";
import { NewJobForm } from "./new-job-form";
import { useTunableModels } from "./use-tunable-models";

export default function FineTuningPage() {
  const { workspace } = useWorkspace();
  // Training spends credits: the roles that may call models may start one.
  const canTrain = may(workspace, "models.call");
  const tunable = useTunableModels();
  return (
    <>
      <PageHeader
        title="Fine-tuning"
        description="Train a base model on your own chat examples. The tuned model, and a checkpoint per epoch, belong to this workspace alone and are called by name like any model."
      />
      <div className="flex flex-col gap-6">
        {canTrain ? <NewJobForm workspaceId={workspace.id} tunable={tunable} /> : null}
        <JobList workspaceId={workspace.id} baseModel={tunable.models[0]?.id ?? null} />
      </div>
    </>
  );
}
