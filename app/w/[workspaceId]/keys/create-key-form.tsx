"use client";
// The form that creates a key. The server validates everything again (name, a future expiry, a
// positive decimal spend limit); the form only spares obvious round trips.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, TextField } from "@/app/_components/ui";

const DECIMAL = /^\d+(\.\d{1,18})?$/;

/** A date input's day, as the end of that day in the user's time zone. */
const endOfLocalDay = (day: string) => new Date(`${day}T23:59:59.999`).toISOString();

export function CreateKeyForm({ onCreated }: { onCreated: (created: { name: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [limit, setLimit] = useState("");
  const [limitError, setLimitError] = useState<string | null>(null);
  const create = useMutation(
    trpc.keys.create.mutationOptions({
      onSuccess: ({ key, secret }) => {
        onCreated({ name: key.name, secret });
        setName("");
        setExpires("");
        setLimit("");
        void refresh(queryClient, trpc.keys.list.queryKey());
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    const spendLimit = limit.trim();
    if (spendLimit && (!DECIMAL.test(spendLimit) || /^0+(\.0+)?$/.test(spendLimit))) {
      setLimitError("Enter an amount in USD above zero, such as 5 or 0.25.");
      return;
    }
    setLimitError(null);
    create.mutate({
      name: name.trim(),
      ...(expires ? { expiresAt: endOfLocalDay(expires) } : {}),
      ...(spendLimit ? { spendLimit } : {}),
    });
  }

  return (
    <Card title="Create a key">
      <form onSubmit={submit} className="grid gap-4 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-start">
        <TextField label="Name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. production server" />
        <TextField label="Expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} hint="Optional. Stops working at the end of that day." />
        <TextField
          label="Spend limit (USD)"
          inputMode="decimal"
          value={limit}
          onChange={(e) => setLimit(e.target.value)}
          error={limitError}
          hint="Optional. The key is refused once it has spent this much."
          placeholder="no limit"
        />
        <Button type="submit" busy={create.isPending} className="sm:mt-6">
          Create key
        </Button>
      </form>
      {create.error ? (
        <div className="mt-4">
          <ErrorState error={create.error} />
        </div>
      ) : null}
    </Card>
  );
}
