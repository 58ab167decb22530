"use client";
// Starts a render through videos.create, the procedure behind POST /v1/videos: the same checks,
// the same price. Seconds and sizes offered are the chosen model's ranges from the catalog.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Card, EmptyState, ErrorState, Loading, SelectField, TextField, TextareaField } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { useModelDetails } from "../models/use-model-details";

export function NewVideoForm({ canCall }: { canCall: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { models, isLoading, error, refetch } = useModelDetails("video");
  const [picked, setPicked] = useState("");
  const [prompt, setPrompt] = useState("");
  const [seconds, setSeconds] = useState("");
  const [pickedSize, setPickedSize] = useState("");
  const model = models.find((m) => m.id === picked) ?? models.find((m) => m.ready_now) ?? models[0];
  const video = model?.video;
  const size = video?.supported_sizes.some((s) => s.size === pickedSize) ? pickedSize : (video?.default_size ?? "");
  const create = useMutation(
    trpc.videos.create.mutationOptions({
      onSuccess: async () => {
        setPrompt("");
        await refresh(queryClient, trpc.videos.list.queryKey());
      },
    }),
  );

  let body;
  if (error) body = <ErrorState error={error} onRetry={refetch} />;
  else if (isLoading) body = <Loading label="Loading video models…" />;
  else if (!model) body = <EmptyState title="No video models in the catalog." />;
  else
    body = (
      <form
        className="grid gap-4 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ model: model.id, prompt, seconds: seconds || undefined, size: size || undefined });
        }}
      >
        <SelectField label="Model" value={model.id} onChange={(e) => setPicked(e.target.value)}>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
              {m.ready_now ? "" : " (no node online)"}
            </option>
          ))}
        </SelectField>
        <SelectField label="Size" value={size} onChange={(e) => setPickedSize(e.target.value)}>
          {video?.supported_sizes.map((s) => (
            <option key={s.size} value={s.size}>
              {s.size} (price ×{s.price_multiplier})
            </option>
          ))}
        </SelectField>
        <TextareaField label="Prompt" value={prompt} onChange={(e) => setPrompt(e.target.value)} required maxLength={32000} rows={3} className="sm:col-span-2" />
        <TextField
          label="Seconds"
          type="number"
          inputMode="numeric"
          min={video?.seconds.min}
          max={video?.seconds.max}
          step={1}
          value={seconds}
          placeholder={video ? String(video.seconds.min) : undefined}
          onChange={(e) => setSeconds(e.target.value)}
          hint={video ? `${video.seconds.min}–${video.seconds.max} s at ${video.default_fps ?? video.fps.min} fps; $${model.pricing.per_video_second} per second × size multiplier` : undefined}
        />
        <div className="flex items-end justify-end">
          <Button type="submit" busy={create.isPending} disabled={!canCall || !prompt.trim()}>
            Create video
          </Button>
        </div>
        {create.error ? (
          <div className="sm:col-span-2">
            <ErrorState error={create.error} />
          </div>
        ) : null}
      </form>
    );
  return <Card title="New video">{body}</Card>;
}
