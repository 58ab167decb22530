"use client";
// Tools: the MCP servers whose tools the workspace's callers reach at /mcp (docs/MCP.md), its own and
// the operator's gateway-wide ones, each with its health, price and tools; how a client connects;
// and whether callers may use servers not registered here. Every member reads them and asks for
// them to be listed again; owners and admins add, price and remove the workspace's own.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC, useTRPCClient } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { may, roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Button, Card, EmptyState, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { AddServerForm } from "./add-server-form";
import { AdhocServers } from "./adhoc-servers";
import { ConnectClient } from "./connect-client";
import { ServerCard } from "./server-card";

export default function ToolsPage() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const { workspace } = useWorkspace();
  // The same roles mcp.add, price, remove and adhoc allow; the server refuses everyone else anyway.
  const mayManage = may(workspace, "mcp.manage");
  const servers = useQuery(trpc.mcp.list.queryOptions());
  // Lists every server again (their tools and whether they answer), then shows what it found.
  const recheck = useMutation({ mutationFn: () => client.mcp.list.query({ refresh: true }), onSuccess: () => refresh(queryClient, trpc.mcp.list.queryKey()) });

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Tools"
        description="MCP servers whose tools your callers use through the gateway's /mcp endpoint, named server__tool, each call priced and logged. Gateway-wide servers are the operator's."
        actions={
          <Button variant="secondary" busy={recheck.isPending} onClick={() => recheck.mutate()}>
            Refresh
          </Button>
        }
      />
      <ErrorState error={recheck.error} />
      <ConnectClient />
      {mayManage ? (
        <AddServerForm />
      ) : (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-600">
          Your role ({roleName(workspace)}) can see the servers and their tools but not change them; owners and admins can.
        </p>
      )}
      {servers.isPending ? (
        <Loading label="Loading servers…" />
      ) : servers.error ? (
        <ErrorState error={servers.error} onRetry={() => void servers.refetch()} />
      ) : (
        <>
          <Card title="Unregistered servers">
            <AdhocServers on={servers.data.adhoc_servers} mayManage={mayManage} />
          </Card>
          {servers.data.data.length === 0 ? (
            <Card title="Servers">
              <EmptyState title="No MCP servers yet">
                A server registered here offers its tools to this workspace's callers at /mcp; see docs/MCP.md.{mayManage ? " Add one above." : null}
              </EmptyState>
            </Card>
          ) : (
            servers.data.data.map((s) => <ServerCard key={s.id} server={s} mayManage={mayManage} />)
          )}
        </>
      )}
    </div>
  );
}
