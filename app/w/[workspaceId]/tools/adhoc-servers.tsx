"use client";
// Whether the workspace's callers may name MCP servers it has not registered (the responses API's
// `mcp` tool with a server_url): off unless an owner or admin turns it on.
import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { CheckField, ErrorState } from "@/app/_components/ui";

export function AdhocServers({ on, mayManage }: { on: boolean; mayManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const set = useMutation(trpc.mcp.adhoc.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.mcp.list.queryKey()) }));
  // What was asked, shown from the click on (the mutation's own state arrives a tick later, and a
  // controlled checkbox would meanwhile flip back), until the list shows the saved value.
  const [asked, setAsked] = useState<boolean | null>(null);
  return (
    <div className="flex flex-col gap-2">
      <CheckField
        label="Allow unregistered servers"
        note="Callers may name any MCP server by URL in the responses API's mcp tool (still only public addresses, unless the operator allows more). Off: only the servers listed here."
        checked={asked ?? on}
        disabled={!mayManage || set.isPending}
        onChange={(checked) => {
          setAsked(checked);
          set.mutate({ on: checked }, { onSettled: () => setAsked(null) });
        }}
      />
      <ErrorState error={set.error} />
    </div>
  );
}
