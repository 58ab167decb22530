"use client";
// SCIM provisioning (owners only): the base URL and token an identity provider provisions the
// workspace's members with, and the role each of the IdP's groups gives its members.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { SecretOnce } from "@/app/_components/secret-once";
import { Badge, Button, Card, ErrorState, Loading, SelectField, Table, Td } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";

const BUILT_IN = ["admin", "member", "billing", "viewer"] as const;
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "never");

function GroupRoles() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const groups = useQuery(trpc.scim.groups.queryOptions());
  const map = useMutation(trpc.scim.mapGroup.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.scim.groups.queryKey() }) }));
  if (groups.isPending) return <Loading label="Loading groups…" />;
  if (groups.isError) return <ErrorState error={groups.error} onRetry={() => void groups.refetch()} />;
  if (!groups.data.groups.length) return <p className="text-sm text-slate-600">No groups yet: they appear here once the identity provider pushes them.</p>;
  const choose = (group: string, value: string) => {
    if (value.startsWith("custom:")) map.mutate({ group, customRole: value.slice("custom:".length) });
    else map.mutate({ group, role: value ? (value as (typeof BUILT_IN)[number]) : null });
  };
  return (
    <>
      <Table caption="SCIM groups and their roles" head={["Group", "Members", "Gives"]}>
        {groups.data.groups.map((g) => (
          <tr key={g.id}>
            <Td>{g.display_name}</Td>
            <Td>{g.members}</Td>
            <Td>
              <SelectField
                label={`Role of ${g.display_name}`}
                className="w-48"
                value={g.role ?? (g.custom_role ? `custom:${g.custom_role.id}` : "")}
                disabled={map.isPending}
                onChange={(e) => choose(g.id, e.target.value)}
              >
                <option value="">no role (the default)</option>
                {BUILT_IN.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
                {groups.data.custom_roles.map((r) => (
                  <option key={r.id} value={`custom:${r.id}`}>
                    {r.name} (custom)
                  </option>
                ))}
              </SelectField>
            </Td>
          </tr>
        ))}
      </Table>
      {map.isError ? <ErrorState error={map.error} /> : null}
    </>
  );
}

function ScimProvisioning() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.scim.status.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.scim.status.queryKey() });
  const create = useMutation(trpc.scim.createToken.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.scim.revokeTokens.mutationOptions({ onSuccess: refresh }));
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);
  if (status.isPending) return <Loading label="Loading SCIM settings…" />;
  if (status.isError) return <ErrorState error={status.error} onRetry={() => void status.refetch()} />;
  const baseUrl = status.data.base_url ?? `${origin}${status.data.path}`;
  const live = status.data.tokens.filter((t) => !t.revoked_at);
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-slate-600">
        Give your identity provider (Okta, Microsoft Entra ID…) this base URL and a token. It then creates, updates and deactivates the workspace&apos;s members; a deactivated
        person&apos;s dashboard sessions end at once and their API keys are revoked. People are provisioned only in the verified domains of single sign-on.
      </p>
      <dl className="grid gap-1 text-sm">
        <dt className="font-medium text-slate-700">SCIM base URL</dt>
        <dd>
          <code data-testid="scim-base-url" className="break-all rounded bg-slate-100 px-2 py-1 font-mono">
            {baseUrl}
          </code>
        </dd>
      </dl>
      {create.data ? (
        <SecretOnce
          id="scim-token-title"
          title="Your new SCIM token"
          advice="Paste it into your identity provider now: it is not shown again. Older tokens no longer work."
          secret={create.data.token}
          noun="token"
          testId="scim-token"
          onDone={() => create.reset()}
        />
      ) : null}
      <Table caption="SCIM tokens" head={["Token", "Created", "Last used", "State"]}>
        {status.data.tokens.map((t) => (
          <tr key={t.id}>
            <Td className="font-mono">{t.start}…</Td>
            <Td>{when(t.created_at)}</Td>
            <Td>{when(t.last_used_at)}</Td>
            <Td>{t.revoked_at ? <Badge>revoked</Badge> : <Badge tone="green">live</Badge>}</Td>
          </tr>
        ))}
      </Table>
      <div className="flex flex-wrap items-center gap-3">
        <Button busy={create.isPending} onClick={() => create.mutate()}>
          {live.length ? "Replace the token" : "Create a token"}
        </Button>
        {live.length ? (
          <ConfirmInRow
            label="Revoke the token"
            ariaLabel="Revoke the SCIM token"
            confirmAriaLabel="Confirm revoking the SCIM token"
            note="Provisioning stops until a new token is made."
            confirmLabel="Yes, revoke"
            busy={revoke.isPending}
            error={revoke.error}
            onConfirm={() => revoke.mutate()}
          />
        ) : null}
      </div>
      {create.isError ? <ErrorState error={create.error} /> : null}
      <h3 className="text-sm font-semibold text-slate-800">Groups and the roles they give</h3>
      <p className="text-sm text-slate-600">
        A member gets the most privileged role of their groups (admin, member, billing, viewer; a custom role only when no built-in one applies), and single sign-on&apos;s
        default role when none of their groups gives one. Owners are never changed.
      </p>
      <GroupRoles />
    </div>
  );
}

export function ScimSettings() {
  const { workspace } = useWorkspace();
  if (!workspace.permissions.includes("sso.manage")) return null;
  return (
    <Card title="SCIM provisioning">
      <ScimProvisioning />
    </Card>
  );
}
