"use client";
// Operators only: grant credits to this workspace. The server refuses anyone else
// (operatorProcedure) and validates the amount as an exact decimal; no payment is taken here.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, TextField } from "@/app/_components/ui";
import { formatUsd } from "../usage/format";

export function AddCreditsForm({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const add = useMutation(
    trpc.billing.addCredits.mutationOptions({
      onSuccess: (workspace, input) => {
        setDone(`Added ${formatUsd(input.amount)}. The balance is now ${formatUsd(workspace.balance)}.`);
        setAmount("");
        setNote("");
        void refresh(queryClient, trpc.billing.overview.queryKey());
        void refresh(queryClient, trpc.billing.ledger.queryKey());
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    add.mutate({ workspaceId, amount: amount.trim(), ...(note.trim() ? { note: note.trim() } : {}) });
  }

  return (
    <Card title="Add credits">
      <p className="mb-4 text-sm text-slate-600">As a gateway operator you can grant credits to this workspace. They are recorded in the ledger under your name.</p>
      <form onSubmit={submit} className="grid gap-4 sm:grid-cols-[1fr_2fr_auto] sm:items-start">
        <TextField label="Amount (USD)" required inputMode="decimal" pattern="\d+(\.\d+)?" title="A positive amount such as 25 or 0.5" value={amount} onChange={(e) => setAmount(e.target.value)} />
        <TextField label="Note" maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} placeholder="e.g. invoice 2025-014" />
        <Button type="submit" busy={add.isPending} className="sm:mt-6">
          Add credits
        </Button>
      </form>
      <div className="mt-3" aria-live="polite">
        {done ? <p className="text-sm text-green-700">{done}</p> : null}
      </div>
      {add.error ? <ErrorState error={add.error} /> : null}
    </Card>
  );
}
