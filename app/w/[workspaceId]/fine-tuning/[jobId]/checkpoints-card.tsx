"use client";
// A job's checkpoints (one per epoch on the built-in node), newest first: the step, its metrics,
// and the checkpoint's model name to copy or open in the playground.
import { Card, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { useCheckpoints } from "../api";
import type { FtCheckpointView } from "../job-shape";
import { ModelName } from "../model-name";

const fixed = (v: number | null | undefined) => (typeof v === "number" ? v.toFixed(4) : "—");

function CheckpointRow({ checkpoint, workspaceId }: { checkpoint: FtCheckpointView; workspaceId: string }) {
  const m = checkpoint.metrics;
  return (
    <tr data-testid="checkpoint-row" data-step={checkpoint.step_number}>
      <Td className="tabular-nums">{checkpoint.step_number}</Td>
      <Td className="tabular-nums">{fixed(m.train_loss)}</Td>
      <Td className="tabular-nums">{fixed(m.valid_loss ?? m.full_valid_loss)}</Td>
      <Td className="tabular-nums">{fixed(m.train_mean_token_accuracy)}</Td>
      <Td className="whitespace-normal">
        <ModelName workspaceId={workspaceId} model={checkpoint.fine_tuned_model_checkpoint} what="checkpoint's name" />
      </Td>
    </tr>
  );
}

export function CheckpointsCard({ jobId, workspaceId, live }: { jobId: string; workspaceId: string; live: boolean }) {
  const checkpoints = useCheckpoints(jobId, live);
  let body;
  if (checkpoints.error) body = <ErrorState error={checkpoints.error} onRetry={() => void checkpoints.refetch()} />;
  else if (checkpoints.isPending) body = <Loading label="Loading checkpoints…" />;
  else if (!checkpoints.data.data.length) body = <EmptyState title={live ? "No checkpoints yet." : "No checkpoints."}>A checkpoint is saved at the end of each epoch; each one answers as a model.</EmptyState>;
  else
    body = (
      <Table caption="Checkpoints" head={["Step", "Train loss", "Valid loss", "Token accuracy", "Model"]}>
        {checkpoints.data.data.map((c) => (
          <CheckpointRow key={c.id} checkpoint={c} workspaceId={workspaceId} />
        ))}
      </Table>
    );
  return <Card title="Checkpoints">{body}</Card>;
}
