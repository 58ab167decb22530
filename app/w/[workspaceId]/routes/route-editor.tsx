"use client";
// The route editor of owners and admins: the route's JSON as written by hand (docs/ROUTING.md),
// saved with routes.set, which creates the route or replaces the workspace's route of that name.
// The server checks it whole (schema, models, nodes, cycles, CEL conditions) and its refusal,
// which names the field, is shown as it came; only JSON that does not parse is refused here.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, TextareaField } from "@/app/_components/ui";

export type Draft = { text: string; editing: string | null; override: boolean };

export function RouteEditor({ draft, onNew }: { draft: Draft; onNew: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [text, setText] = useState(draft.text);
  const [parseError, setParseError] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const save = useMutation(trpc.routes.set.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.routes.list.queryKey()) }));
  // Editing a listed route opens it here, above the list: take keyboard focus, and show it.
  useEffect(() => {
    if (!draft.editing) return;
    form.current?.querySelector("textarea")?.focus();
    form.current?.scrollIntoView({ block: "nearest" });
  }, [draft.editing]);

  function submit(e: FormEvent) {
    e.preventDefault();
    save.reset();
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (err) {
      return setParseError(`The route is not valid JSON: ${(err as Error).message}`);
    }
    setParseError(null);
    save.mutate({ definition });
  }

  const title = draft.editing ? (draft.override ? `Override ${draft.editing} in this workspace` : `Edit ${draft.editing}`) : "Add a route";
  return (
    <Card title={title}>
      <form ref={form} onSubmit={submit} aria-label={title} className="flex flex-col gap-4">
        <TextareaField
          label="Route (JSON)"
          value={text}
          onChange={(e) => setText(e.target.value)}
          spellCheck={false}
          rows={Math.min(24, Math.max(8, text.split("\n").length + 1))}
          className="[&_textarea]:font-mono [&_textarea]:text-xs"
          hint={
            draft.override
              ? "Saved as this workspace's own route of the same name, which takes the gateway-wide one's place here."
              : "name, strategy (weighted, fallback, least-latency, lowest-cost, least-busy), targets, and optionally retry, conditions, max_wait_ms (docs/ROUTING.md). Saving a name that exists replaces that route."
          }
        />
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" busy={save.isPending}>
            Save route
          </Button>
          {draft.editing ? (
            <Button variant="secondary" onClick={onNew}>
              New route instead
            </Button>
          ) : null}
          {save.isSuccess ? (
            <p role="status" className="text-sm text-green-700">
              Saved the route <code className="font-mono">{save.data.name}</code>.
            </p>
          ) : null}
        </div>
      </form>
      {parseError || save.error ? (
        // A refused condition's message points at the position with a caret under its line: keep its lines and columns.
        <div className="mt-4 [&_span]:font-mono [&_span]:whitespace-pre-wrap">
          <ErrorState error={parseError ? { message: parseError } : save.error} />
        </div>
      ) : null}
    </Card>
  );
}
