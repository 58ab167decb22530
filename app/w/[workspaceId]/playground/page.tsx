"use client";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { Button, Card, EmptyState, ErrorState, Loading, PageHeader, SelectField, TextareaField } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { Conversation } from "./conversation";
import type { ReplayDraft } from "./replay";
import { useChat } from "./use-chat";
import { useReplay } from "./use-replay";

export default function PlaygroundPage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const models = useQuery(trpc.models.list.queryOptions());
  const chatModels = (models.data?.data ?? []).filter((m) => m.type === "chat" && !m.deprecated);
  const [picked, setPicked] = useState("");
  // ?model= (the Logs page's "open in playground") picks a listed chat model.
  const asked = useSearchParams().get("model");
  const linked = chatModels.find((m) => m.id === asked)?.id;
  // A model made a moment ago (a fine-tuned one opened from its job) may be missing from a list
  // read just before it existed: the list is read again, up to 3 times a second apart.
  const missing = Boolean(asked && models.data && !linked);
  const [rereads, setRereads] = useState(0);
  const { refetch } = models;
  useEffect(() => {
    if (!missing || rereads >= 3) return;
    const timer = setTimeout(() => {
      setRereads((n) => n + 1);
      void refetch();
    }, 1000);
    return () => clearTimeout(timer);
  }, [missing, rereads, refetch]);
  const model = picked || linked || chatModels.find((m) => m.ready_now)?.id || chatModels[0]?.id || "";
  const [system, setSystem] = useState("");
  const [message, setMessage] = useState("");
  const { turns, busy, send, clear, load } = useChat();
  const replay = useReplay(
    useCallback(
      (draft: ReplayDraft) => {
        setSystem(draft.system);
        setMessage(draft.message);
        load(draft.history);
      },
      [load],
    ),
  );
  const canCall = may(workspace, "models.call");

  const submit = () => {
    if (!model || !message.trim() || busy) return;
    void send(model, system, message);
    setMessage("");
  };

  return (
    <>
      <PageHeader
        title="Playground"
        description="Chat with any chat model. Each turn is a real call, billed to this workspace like an API call, with its tokens and cost shown below the reply."
      />
      {replay.error ? (
        <p role="alert" className="mb-4 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
          {replay.error}
        </p>
      ) : replay.loading ? (
        <p className="mb-4 text-sm text-slate-600">Loading the logged conversation…</p>
      ) : null}
      {!canCall ? (
        <p role="alert" className="mb-4 rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          Your role (billing) cannot call models. Ask an owner or admin for the member role to use the playground.
        </p>
      ) : null}
      <div className="grid gap-6 lg:grid-cols-[18rem_1fr]">
        <Card title="Settings">
          {models.error ? (
            <ErrorState error={models.error} onRetry={() => void models.refetch()} />
          ) : models.isLoading ? (
            <Loading label="Loading models…" />
          ) : chatModels.length === 0 ? (
            <EmptyState title="No chat models in the catalog." />
          ) : (
            <div className="flex flex-col gap-4">
              <SelectField label="Model" value={model} onChange={(e) => setPicked(e.target.value)} disabled={busy}>
                {chatModels.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.id}
                    {m.ready_now ? "" : " (no node online)"}
                  </option>
                ))}
              </SelectField>
              <TextareaField label="System prompt" hint="Optional; sent first with every turn." value={system} onChange={(e) => setSystem(e.target.value)} rows={4} />
            </div>
          )}
        </Card>
        <Card
          title="Conversation"
          actions={
            <Button variant="secondary" onClick={clear} disabled={busy || turns.length === 0}>
              Clear
            </Button>
          }
        >
          {turns.length === 0 ? <EmptyState title="No messages yet.">Write a message below and press Send (or Ctrl+Enter).</EmptyState> : <Conversation turns={turns} />}
          <form
            className="mt-4 flex flex-col gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <TextareaField
              label="Message"
              value={message}
              onChange={(e) => setMessage(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  submit();
                }
              }}
              rows={3}
            />
            <div className="flex justify-end">
              <Button type="submit" busy={busy} disabled={!model || !message.trim() || !canCall}>
                Send
              </Button>
            </div>
          </form>
        </Card>
      </div>
    </>
  );
}
