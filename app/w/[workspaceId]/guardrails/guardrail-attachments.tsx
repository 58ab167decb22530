"use client";
// Where a guardrail runs in this workspace: on every call (attached to the workspace), on the calls
// of a plan or of a key, and, for the operator's, on every workspace's calls. Owners and admins
// attach it to the workspace, one of its plans or one of its live keys, and detach it; the
// operator's attachment to every workspace is set with the CLI only.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, ErrorState, SelectField } from "@/app/_components/ui";
import { attachChoices, attachmentOf, attachTarget, type KeyRef, type PlanRef } from "./guardrail-format";

type Props = { name: string; attachedTo: string[]; plans: readonly PlanRef[]; keys: readonly KeyRef[]; mayManage: boolean };

export function GuardrailAttachments({ name, attachedTo, plans, keys, mayManage }: Props) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const onSuccess = () => refresh(queryClient, trpc.guardrails.list.queryKey());
  const attach = useMutation(trpc.guardrails.attach.mutationOptions({ onSuccess }));
  const detach = useMutation(trpc.guardrails.detach.mutationOptions({ onSuccess }));
  const attachments = attachedTo.map((t) => attachmentOf(t, plans, keys));
  const choices = attachChoices(attachedTo, plans, keys);
  const values = [...(choices.workspace ? ["workspace"] : []), ...choices.plans.map((p) => `plan:${p.id}`), ...choices.keys.map((k) => `key:${k.id}`)];
  const [picked, setPicked] = useState("");
  const choice = values.includes(picked) ? picked : (values[0] ?? "");

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!choice) return;
    detach.reset();
    attach.mutate({ name, ...attachTarget(choice) });
  }

  return (
    <div className="flex flex-col gap-3">
      {attachments.length ? (
        <ul className="flex flex-wrap gap-2" aria-label={`Where ${name} is attached`} data-testid="guardrail-attachments">
          {attachments.map((a) => (
            <li key={a.target} className="inline-flex items-center gap-1 rounded-full border border-slate-200 bg-slate-50 py-0.5 pr-1 pl-3 text-sm" title={a.target}>
              <span>{a.label}</span>
              {mayManage && a.detach ? (
                <button
                  type="button"
                  className="rounded-full px-2 py-0.5 text-xs font-medium text-slate-600 hover:bg-slate-200 disabled:opacity-50"
                  aria-label={`Detach ${name} from ${a.label}`}
                  disabled={detach.isPending}
                  onClick={() => {
                    attach.reset();
                    detach.mutate({ name, ...a.detach });
                  }}
                >
                  Detach
                </button>
              ) : (
                <span className="pr-2" />
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-500" data-testid="guardrail-attachments">
          Not attached: it checks no call until it is attached to the workspace, a plan or a key.
        </p>
      )}
      {mayManage && values.length ? (
        <form onSubmit={submit} aria-label={`Attach ${name}`} className="flex flex-wrap items-end gap-2">
          <SelectField label="Attach to" value={choice} onChange={(e) => setPicked(e.target.value)} className="min-w-64">
            {choices.workspace ? <option value="workspace">the workspace (every call)</option> : null}
            {choices.plans.length ? (
              <optgroup label="A plan (its callers' calls)">
                {choices.plans.map((p) => (
                  <option key={p.id} value={`plan:${p.id}`}>
                    plan {p.name}
                  </option>
                ))}
              </optgroup>
            ) : null}
            {choices.keys.length ? (
              <optgroup label="A key (its calls)">
                {choices.keys.map((k) => (
                  <option key={k.id} value={`key:${k.id}`}>
                    key {k.name} ({k.prefix}…)
                  </option>
                ))}
              </optgroup>
            ) : null}
          </SelectField>
          <Button type="submit" variant="secondary" busy={attach.isPending} aria-label={`Attach ${name}`}>
            Attach
          </Button>
        </form>
      ) : null}
      <ErrorState error={attach.error ?? detach.error} />
    </div>
  );
}
