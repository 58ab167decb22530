"use client";
// A key's plan in the keys table: owners and admins switch it in place (keys.setPlan); others read it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { KeyView } from "@/server/identity/keys/key-view";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";

export type PlanOption = { id: string; name: string };

export function KeyPlanCell({ keyView, plans, mayChange }: { keyView: KeyView; plans: PlanOption[]; mayChange: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const setPlan = useMutation(
    trpc.keys.setPlan.mutationOptions({
      onSuccess: () => refresh(queryClient, trpc.keys.list.queryKey(), trpc.plans.budgets.queryKey()),
    }),
  );
  const name = keyView.planId ? (plans.find((p) => p.id === keyView.planId)?.name ?? keyView.planId) : null;
  if (!mayChange) return name ? <span>{name}</span> : <span className="text-slate-500">none</span>;
  return (
    <div className="flex flex-col gap-1">
      <select
        aria-label={`Plan of ${keyView.name}`}
        value={setPlan.isPending ? (setPlan.variables?.planId ?? "") : (keyView.planId ?? "")}
        disabled={setPlan.isPending}
        onChange={(e) => setPlan.mutate({ id: keyView.id, planId: e.target.value || null })}
        className="max-w-40 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm disabled:opacity-50"
      >
        <option value="">No plan</option>
        {plans.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      {setPlan.error ? (
        <span role="alert" className="max-w-40 whitespace-normal text-xs text-red-700">
          {setPlan.error.message}
        </span>
      ) : null}
    </div>
  );
}
