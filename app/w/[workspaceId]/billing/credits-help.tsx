"use client";
// How to get credits: what the install's operator said (or the default), shown prominently when
// the workspace has none; operators edit the text here for every workspace of the install.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, TextField } from "@/app/_components/ui";

export function CreditsHelpNotice({ neverFunded }: { neverFunded: boolean }) {
  const trpc = useTRPC();
  const help = useQuery(trpc.billing.creditsHelp.queryOptions());
  const text = help.data?.text ?? help.data?.defaultText;
  if (!text) return null;
  return (
    <section data-testid="credits-help" role="status" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900">
      <h2 className="font-semibold">{neverFunded ? "This workspace has no credits yet" : "This workspace has no credits left"}</h2>
      <p className="mt-1 whitespace-pre-line">Calls are refused until it has some. {text}</p>
    </section>
  );
}

export function CreditsHelpForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const help = useQuery(trpc.billing.creditsHelp.queryOptions());
  const [text, setText] = useState("");
  useEffect(() => setText(help.data?.text ?? ""), [help.data?.text]);
  const save = useMutation(trpc.billing.setCreditsHelp.mutationOptions({ onSuccess: () => void refresh(queryClient, trpc.billing.creditsHelp.queryKey()) }));

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate({ text });
  }

  return (
    <Card title="How users get credits (operators)">
      <form onSubmit={submit} className="flex flex-col gap-3">
        <TextField
          label="What workspaces without credits are told"
          value={text}
          maxLength={500}
          onChange={(e) => setText(e.target.value)}
          placeholder={help.data?.defaultText ?? ""}
          hint="Shown on the billing page and in the API's 402 answers of every workspace. Empty: the default text."
        />
        <ErrorState error={save.error} />
        <div className="flex items-center gap-3">
          <Button type="submit" busy={save.isPending}>
            Save
          </Button>
          {save.isSuccess ? <span className="text-xs text-slate-600">Saved.</span> : null}
        </div>
      </form>
    </Card>
  );
}
