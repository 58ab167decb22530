"use client";
// The form that creates a key, optionally on a plan and with narrower permissions. The server
// validates everything again (name, a future expiry, a positive decimal spend limit, a plan of the
// workspace, known permission groups); the form only spares obvious round trips.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, ErrorState, SelectField, TextField } from "@/app/_components/ui";
import { ALL_PERMISSIONS, KeyPermissionsFields, restrictionsOf, type PermissionChoice } from "./key-permissions-fields";

const DECIMAL = /^\d+(\.\d{1,18})?$/;

/** A date input's day, as the end of that day in the user's time zone. */
const endOfLocalDay = (day: string) => new Date(`${day}T23:59:59.999`).toISOString();

export function CreateKeyForm({
  onCreated,
  plans,
}: {
  onCreated: (created: { name: string; secret: string }) => void;
  /** The plans a key may be put on (empty for roles that may not choose one). */
  plans: Array<{ id: string; name: string }>;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [limit, setLimit] = useState("");
  const [planId, setPlanId] = useState("");
  const [limitError, setLimitError] = useState<string | null>(null);
  const [permissions, setPermissions] = useState<PermissionChoice>(ALL_PERMISSIONS);
  const [permissionsError, setPermissionsError] = useState<string | null>(null);
  const create = useMutation(
    trpc.keys.create.mutationOptions({
      onSuccess: ({ key, secret }) => {
        onCreated({ name: key.name, secret });
        setName("");
        setExpires("");
        setLimit("");
        setPlanId("");
        setPermissions(ALL_PERMISSIONS);
        void refresh(queryClient, trpc.keys.list.queryKey(), trpc.plans.budgets.queryKey());
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
    if (!permissions.all && permissions.groups.length === 0) {
      setPermissionsError("Tick at least one operation group, or choose All.");
      return;
    }
    setPermissionsError(null);
    create.mutate({
      ...restrictionsOf(permissions),
      name: name.trim(),
      ...(expires ? { expiresAt: endOfLocalDay(expires) } : {}),
      ...(spendLimit ? { spendLimit } : {}),
      ...(planId ? { planId } : {}),
    });
  }

  return (
    <Card title="Create a key">
      <form onSubmit={submit} className="grid gap-4 sm:grid-cols-2 sm:items-start lg:grid-cols-[2fr_1fr_1fr_1fr_auto]">
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
        {plans.length ? (
          <SelectField label="Plan" value={planId} onChange={(e) => setPlanId(e.target.value)} hint="Optional. Its rate limits and caps apply to the key.">
            <option value="">No plan</option>
            {plans.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </SelectField>
        ) : null}
        <KeyPermissionsFields value={permissions} onChange={(next) => (setPermissions(next), setPermissionsError(null))} error={permissionsError} />
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
