"use client";
// The identity providers the workspace trusts; owners and admins add and remove them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, Card, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { IssuerForm } from "./issuer-form";

export function Issuers({ plans, mayManage }: { plans: Array<{ id: string; name: string }>; mayManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const issuers = useQuery(trpc.plans.issuers.queryOptions());
  const remove = useMutation(trpc.plans.removeIssuer.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.plans.issuers.queryKey()) }));
  const planName = (id: string | null) => (id === null ? "—" : (plans.find((p) => p.id === id)?.name ?? id));
  return (
    <Card title="Trusted identity providers">
      <div className="flex flex-col gap-4">
        <p className="text-sm text-slate-600">Tokens signed by these providers are accepted like the gateway&apos;s own session tokens.</p>
        {issuers.isPending ? (
          <Loading label="Loading identity providers…" />
        ) : issuers.error ? (
          <ErrorState error={issuers.error} onRetry={() => void issuers.refetch()} />
        ) : issuers.data.length === 0 ? (
          <EmptyState title="No trusted identity providers" />
        ) : (
          <Table caption="Trusted identity providers" head={["Issuer", "Audience", "Claims", "Default plan", ...(mayManage ? ["Actions"] : [])]}>
            {issuers.data.map((i) => (
              <tr key={i.id}>
                <Td className="font-medium">
                  <span className="block max-w-64 truncate" title={`${i.issuer} · keys from ${i.jwks_url}`}>
                    {i.issuer}
                  </span>
                </Td>
                <Td>
                  <span className="block max-w-48 truncate" title={i.audience}>
                    {i.audience}
                  </span>
                </Td>
                <Td>
                  <code className="text-xs">{i.subject_claim}</code> · <code className="text-xs">{i.plan_claim}</code>
                </Td>
                <Td>{planName(i.default_plan)}</Td>
                {mayManage ? (
                  <Td>
                    <Button variant="ghost" busy={remove.isPending && remove.variables?.id === i.id} onClick={() => remove.mutate({ id: i.id })} aria-label={`Stop trusting ${i.issuer}`}>
                      Remove
                    </Button>
                  </Td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
        {remove.error ? <ErrorState error={remove.error} /> : null}
        {mayManage ? <IssuerForm plans={plans} /> : null}
      </div>
    </Card>
  );
}
