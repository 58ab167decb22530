"use client";
// The workspace's audit log: who changed what, newest first, "Load more" a page at a time (the
// server pages by a keyset cursor, so new events never shift the pages already shown). Owners
// and admins only; the procedure refuses everyone else anyway.
import { LoadMore } from "@/app/_components/load-more";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Badge, EmptyState, ErrorState, Loading, PageHeader, Table, Td } from "@/app/_components/ui";
import { roleName, useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { can } from "@/server/identity/workspaces/permissions";
import { ChangesCell } from "./changes-cell";

const PAGE_SIZE = 50;

function AuditTable() {
  const trpc = useTRPC();
  const events = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions({ limit: PAGE_SIZE }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  if (events.isPending) return <Loading label="Loading the audit log…" />;
  if (events.isError) return <ErrorState error={events.error} onRetry={() => void events.refetch()} />;
  const rows = events.data.pages.flatMap((p) => p.events);
  if (!rows.length) return <EmptyState title="No changes yet">Changes to keys, members, invitations, plans, issuers, credits and settings appear here.</EmptyState>;
  return (
    <div className="flex flex-col gap-3">
      <Table caption="Audit log" head={["Time", "Actor", "Action", "Target", "Changes"]}>
        {rows.map((e) => (
          <tr key={e.id}>
            <Td>
              <time dateTime={e.created_at} title={e.created_at}>
                {new Date(e.created_at).toLocaleDateString()}
                <span className="block text-xs text-slate-500">{new Date(e.created_at).toLocaleTimeString(undefined, { timeStyle: "medium" })}</span>
              </time>
            </Td>
            <Td>
              {e.actor.type === "user" ? (
                <span className="block max-w-48 truncate" title={e.actor.name}>
                  {e.actor.name}
                </span>
              ) : (
                <>
                  <Badge tone={e.actor.type === "cli" ? "indigo" : "slate"}>{e.actor.type}</Badge> {e.actor.name}
                </>
              )}
            </Td>
            <Td>
              <code>{e.action}</code>
            </Td>
            <Td>
              {e.target.type}
              <code className="block max-w-40 truncate text-xs text-slate-500" title={e.target.id ?? undefined}>
                {e.target.id ?? ""}
              </code>
            </Td>
            <Td className="min-w-72 whitespace-normal">
              <ChangesCell changes={e.changes} />
            </Td>
          </tr>
        ))}
      </Table>
      <LoadMore pages={events} />
    </div>
  );
}

export function AuditLog() {
  const { workspace } = useWorkspace();
  const allowed = can(workspace, "audit.view");
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Audit log"
        description={
          allowed ? (
            <>Who changed what in {workspace.name}, newest first: keys, members, invitations, plans, issuers, credits and settings. Secrets are never shown.</>
          ) : (
            <>The audit log is for owners, admins and roles with audit.view. Your role ({roleName(workspace)}) cannot see it.</>
          )
        }
        actions={
          allowed ? (
            <a className="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-50" href={`/w/${workspace.id}/audit/export`} download>
              Export CSV
            </a>
          ) : null
        }
      />
      {allowed ? <AuditTable /> : null}
    </div>
  );
}
