"use client";
// Capture of request and answer bodies in the request log (owners and admins): on or off, the
// bytes kept of each body, and the workspace's own redaction patterns, one per line.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { CaptureSettingsView } from "@/server/request-log/capture/capture-settings";
import { Button, Card, CheckField, ErrorState, Loading, TextareaField, TextField } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { can } from "@/server/identity/workspaces/permissions";

function CaptureForm({ settings }: { settings: CaptureSettingsView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(settings.enabled);
  const [maxBytes, setMaxBytes] = useState(String(settings.max_bytes));
  const [patterns, setPatterns] = useState(settings.redact_patterns.join("\n"));
  const save = useMutation(
    trpc.logs.setCaptureSettings.mutationOptions({
      onSuccess: (saved) => queryClient.setQueryData(trpc.logs.captureSettings.queryKey(), saved),
    }),
  );
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const redact_patterns = patterns.split("\n").map((p) => p.trim()).filter(Boolean);
    save.mutate({ enabled, max_bytes: Number(maxBytes), redact_patterns });
  }
  const touched = () => save.reset();
  return (
    <form onSubmit={submit} className="flex flex-col gap-4">
      <CheckField
        label="Keep request and answer bodies"
        note="Every call of the workspace keeps what was sent and answered (a stream as its assembled answer), for as long as the log keeps its rows. A key can override this on the Keys page."
        checked={enabled}
        onChange={(v) => (setEnabled(v), touched())}
      />
      <TextField
        label="Bytes kept of each body"
        hint="1,024 to 1,048,576; a longer body is cut and marked as cut."
        type="number"
        min={1024}
        max={1048576}
        step={1}
        className="max-w-xs"
        value={maxBytes}
        onChange={(e) => (setMaxBytes(e.target.value), touched())}
      />
      <TextareaField
        label="Redaction patterns"
        hint="One RE2 expression per line, each match replaced by [redacted] (e.g. acct-[0-9]{6}). API keys, bearer tokens, JWTs, private keys and fields named like passwords are always redacted; images and files are kept as references, not bytes."
        rows={4}
        value={patterns}
        onChange={(e) => (setPatterns(e.target.value), touched())}
      />
      <div className="flex items-center gap-3">
        <Button type="submit" busy={save.isPending}>
          Save capture settings
        </Button>
        <p aria-live="polite" className="text-sm text-green-700">
          {save.isSuccess ? "Saved." : null}
        </p>
      </div>
      {save.isError ? <ErrorState error={save.error} /> : null}
    </form>
  );
}

export function CaptureSettings() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const allowed = can(workspace, "logs.bodies");
  const settings = useQuery({ ...trpc.logs.captureSettings.queryOptions(), enabled: allowed });
  if (!allowed) return null;
  return (
    <Card title="Request and answer capture">
      {settings.isPending ? (
        <Loading label="Loading the capture settings…" />
      ) : settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <CaptureForm settings={settings.data} />
      )}
    </Card>
  );
}
