"use client";
// The alive sessions of one plan (newest first, at most 100), each revocable by owners and admins.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { Card, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { formatCap, formatUnix } from "./plan-format";
import { RevokeSessionButton } from "./revoke-session-button";
import { RevokeSubjectForm } from "./revoke-subject-form";

export function PlanSessions({ plan, mayManage }: { plan: { id: string; name: string }; mayManage: boolean }) {
  const trpc = useTRPC();
  const sessions = useQuery(trpc.plans.sessions.queryOptions({ plan: plan.id }));
  return (
    <Card title={`Alive sessions of ${plan.name}`}>
      <div className="flex flex-col gap-4">
        {sessions.isPending ? (
          <Loading label="Loading sessions…" />
        ) : sessions.error ? (
          <ErrorState error={sessions.error} onRetry={() => void sessions.refetch()} />
        ) : sessions.data.length === 0 ? (
          <EmptyState title="No alive sessions">Sessions appear here once an API key mints a token under this plan (POST /v1/sessions).</EmptyState>
        ) : (
          <Table caption={`Alive sessions of ${plan.name}`} head={["Subject", "Created", "Expires", "Spend cap", ...(mayManage ? ["Actions"] : [])]}>
            {sessions.data.map((s) => (
              <tr key={s.id} data-testid="session-row">
                <Td className="font-medium">
                  <span className="block max-w-64 truncate" title={`${s.subject} (session ${s.id})`}>
                    {s.subject}
                  </span>
                </Td>
                <Td>{formatUnix(s.created_at)}</Td>
                <Td>{formatUnix(s.expires_at)}</Td>
                <Td>{s.spend_cap === null ? "plan caps only" : <span title={`${s.spend_cap} USD`}>{formatCap(s.spend_cap)}</span>}</Td>
                {mayManage ? (
                  <Td>
                    <RevokeSessionButton id={s.id} subject={s.subject} />
                  </Td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
        {mayManage ? <RevokeSubjectForm /> : null}
      </div>
    </Card>
  );
}
