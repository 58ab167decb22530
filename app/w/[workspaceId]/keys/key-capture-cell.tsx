"use client";
// Whether a key's calls keep their bodies in the request log: the workspace's setting, always, or
// never. Owners and admins switch it in place (logs.setKeyCapture); others see an override only.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { KeyView } from "@/server/identity/keys/key-view";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";

const LABEL = { inherit: "Bodies: as the workspace", on: "Bodies: kept", off: "Bodies: never kept" } as const;
const choiceOf = (capture: boolean | null) => (capture === null ? "inherit" : capture ? "on" : "off");

export function KeyCaptureCell({ keyView, mayChange }: { keyView: KeyView; mayChange: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const set = useMutation(trpc.logs.setKeyCapture.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.keys.list.queryKey()) }));
  const current = choiceOf(set.isPending ? (set.variables?.capture ?? null) : keyView.capture);
  if (!mayChange) return keyView.capture === null ? null : <span className="mt-1 block text-xs text-slate-500">{LABEL[current]}</span>;
  return (
    <div className="mt-1 flex flex-col gap-1">
      <select
        aria-label={`Body capture of ${keyView.name}`}
        value={current}
        disabled={set.isPending}
        onChange={(e) => set.mutate({ keyId: keyView.id, capture: e.target.value === "inherit" ? null : e.target.value === "on" })}
        className="max-w-48 rounded-md border border-slate-300 bg-white px-2 py-1 text-xs disabled:opacity-50"
      >
        {Object.entries(LABEL).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {set.error ? (
        <span role="alert" className="max-w-48 whitespace-normal text-xs text-red-700">
          {set.error.message}
        </span>
      ) : null}
    </div>
  );
}
