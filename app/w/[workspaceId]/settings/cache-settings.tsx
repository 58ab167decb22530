"use client";
// The response cache's settings (owners and admins change them; every member reads them): used by
// default or only when a call asks, an entry's lifetime and the longest a call may ask, what a hit
// costs as a fraction of the original call, whether sampled calls are cached; and clearing it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { CacheSettingsView } from "@/server/response-cache/settings";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { Button, Card, CheckField, ErrorState, Loading, SelectField, TextField } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { can } from "@/server/identity/workspaces/permissions";

function CacheForm({ settings, mayChange }: { settings: CacheSettingsView; mayChange: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [s, setS] = useState({ ...settings, ttl: String(settings.ttl_seconds), maxTtl: String(settings.max_ttl_seconds) });
  const save = useMutation(trpc.cache.setSettings.mutationOptions({ onSuccess: (saved) => queryClient.setQueryData(trpc.cache.settings.queryKey(), saved) }));
  const clear = useMutation(trpc.cache.clear.mutationOptions());
  const keys = useQuery({ ...trpc.keys.list.queryOptions(), enabled: mayChange });
  const [only, setOnly] = useState({ model: "", keyId: "" });
  const change = (patch: Partial<typeof s>) => (setS({ ...s, ...patch }), save.reset());
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    save.mutate({ default_on: s.default_on, ttl_seconds: Number(s.ttl), max_ttl_seconds: Number(s.maxTtl), price_fraction: s.price_fraction.trim(), sampling: s.sampling });
  }
  const disabled = !mayChange;
  return (
    <form onSubmit={submit} className="flex flex-col gap-4">
      <p className="text-sm text-slate-600">
        A call is answered from the cache when it sends <code>x-gateway-cache: use</code>, or by default when turned on below. Only this workspace&apos;s calls share its
        entries, and only deterministic calls are cached (temperature 0, or a seed) unless sampled ones are allowed.
      </p>
      <CheckField label="Use the cache by default" note="Every chat, responses, embeddings and messages call reads and fills the cache unless it sends x-gateway-cache: bypass." checked={s.default_on} onChange={(v) => change({ default_on: v })} disabled={disabled} />
      <CheckField label="Cache sampled calls" note="Also calls with a temperature above 0 and no seed: their answer is then the same each time." checked={s.sampling} onChange={(v) => change({ sampling: v })} disabled={disabled} />
      <div className="grid gap-4 sm:grid-cols-3">
        <TextField label="Lifetime (seconds)" hint="When a call names none." type="number" min={1} step={1} value={s.ttl} disabled={disabled} onChange={(e) => change({ ttl: e.target.value })} />
        <TextField label="Longest lifetime (seconds)" hint="The most x-gateway-cache-ttl may ask." type="number" min={1} step={1} value={s.maxTtl} disabled={disabled} onChange={(e) => change({ maxTtl: e.target.value })} />
        <TextField label="Price of a hit" hint="A fraction of the original call's cost, 0 to 1 (0: free)." inputMode="decimal" value={s.price_fraction} disabled={disabled} onChange={(e) => change({ price_fraction: e.target.value })} />
      </div>
      {mayChange ? (
        <div className="flex flex-wrap items-end gap-3">
          <Button type="submit" busy={save.isPending}>
            Save cache settings
          </Button>
          <p aria-live="polite" className="text-sm text-green-700">
            {save.isSuccess ? "Saved." : null}
          </p>
          <span className="ml-auto" />
          <TextField label="Only the model" placeholder="every model" className="w-44" value={only.model} onChange={(e) => setOnly({ model: e.target.value, keyId: "" })} />
          <SelectField label="Only the key" className="w-44" value={only.keyId} onChange={(e) => setOnly({ model: "", keyId: e.target.value })}>
            <option value="">every key</option>
            {(keys.data ?? []).map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.prefix}…)
              </option>
            ))}
          </SelectField>
          <ConfirmInRow
            label="Clear the cache"
            ariaLabel="Clear the cache"
            confirmAriaLabel="Confirm clearing the cache"
            note={only.model ? `Remove the cached answers of ${only.model}?` : only.keyId ? "Remove the cached answers of that key's calls?" : "Remove every cached answer of this workspace?"}
            confirmLabel="Yes, clear"
            busy={clear.isPending}
            error={clear.error}
            onConfirm={() => clear.mutate({ ...(only.model.trim() && { model: only.model.trim() }), ...(only.keyId && { keyId: only.keyId }) })}
          />
          <p aria-live="polite" className="basis-full text-right text-sm text-green-700">
            {clear.data ? `Removed ${clear.data.removed} cached answer${clear.data.removed === 1 ? "" : "s"}.` : null}
          </p>
        </div>
      ) : (
        <p className="text-sm text-slate-600">Owners and admins change these settings.</p>
      )}
      {save.isError ? <ErrorState error={save.error} /> : null}
    </form>
  );
}

export function CacheSettings() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const settings = useQuery(trpc.cache.settings.queryOptions());
  return (
    <Card title="Response cache">
      {settings.isPending ? (
        <Loading label="Loading the cache settings…" />
      ) : settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <CacheForm settings={settings.data} mayChange={can(workspace, "cache.manage")} />
      )}
    </Card>
  );
}
