"use client";
// Single sign-on (owners only, sso.manage): the connection to the organisation's identity
// provider (OIDC or SAML), the addresses to register there, the e-mail domains with the DNS TXT
// record that verifies each, and whether those domains must sign in with it. docs/SSO.md.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import type { SsoShow, SsoUrls } from "@/server/identity/sso/connection-schemas";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";
import { Badge, Button, Card, CheckField, ErrorState, Loading, SelectField, Table, Td, TextareaField, TextField } from "@/app/_components/ui";
import { copyMessage, useCopy } from "@/app/_components/use-copy";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";

const BUILT_IN = ["member", "admin", "billing", "viewer"];

function CopyRow({ label, value }: { label: string; value: string }) {
  const { copied, copy } = useCopy();
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      <span className="w-40 shrink-0 font-medium text-slate-700">{label}</span>
      <code className="min-w-0 flex-1 break-all rounded bg-slate-50 px-2 py-1" data-testid={`sso-url-${label}`}>
        {value}
      </code>
      <Button variant="ghost" onClick={() => void copy(value)} aria-label={`Copy the ${label}`}>
        Copy
      </Button>
      <span aria-live="polite" className="sr-only">
        {copyMessage(copied, label)}
      </span>
    </div>
  );
}

function Urls({ kind, urls }: { kind: "oidc" | "saml"; urls: SsoUrls }) {
  return (
    <section aria-label="Addresses to register" className="flex flex-col gap-2">
      <h3 className="text-sm font-semibold">Register these at your identity provider</h3>
      {kind === "oidc" ? (
        <CopyRow label="Redirect URI" value={urls.oidc_redirect_uri} />
      ) : (
        <>
          <CopyRow label="ACS URL" value={urls.saml_acs_url} />
          <CopyRow label="SP entity ID" value={urls.saml_sp_entity_id} />
          <CopyRow label="SP metadata" value={urls.saml_metadata_url} />
        </>
      )}
      <CopyRow label="Sign-in URL" value={urls.sign_in_url} />
    </section>
  );
}

function Domains({ sso }: { sso: SsoShow }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.sso.get.queryKey() });
  const [domain, setDomain] = useState("");
  const add = useMutation(trpc.sso.addDomain.mutationOptions({ onSuccess: () => (setDomain(""), refresh()) }));
  const verify = useMutation(trpc.sso.verifyDomain.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.sso.removeDomain.mutationOptions({ onSuccess: refresh }));
  return (
    <section aria-label="Domains" className="flex flex-col gap-3">
      <h3 className="text-sm font-semibold">E-mail domains</h3>
      <p className="text-sm text-slate-600">
        People of a verified domain sign in here with single sign-on. To verify a domain, publish its TXT record in DNS, then press Verify.
      </p>
      {sso.domains.length ? (
        <Table caption="The connection's e-mail domains" head={["Domain", "Status", "TXT record", ""]}>
          {sso.domains.map((d) => (
            <tr key={d.domain}>
              <Td>{d.domain}</Td>
              <Td>{d.verified ? <Badge tone="green">verified ({d.verified_by})</Badge> : <Badge tone="amber">not verified</Badge>}</Td>
              <Td className="text-xs">
                <code className="break-all">{d.txt_name}</code>
                <br />
                <code className="break-all">{d.txt_value}</code>
              </Td>
              <Td className="whitespace-nowrap text-right">
                {d.verified ? null : (
                  <Button variant="secondary" busy={verify.isPending && verify.variables?.domain === d.domain} onClick={() => verify.mutate({ domain: d.domain })}>
                    Verify
                  </Button>
                )}{" "}
                <Button variant="ghost" aria-label={`Remove ${d.domain}`} onClick={() => remove.mutate({ domain: d.domain })}>
                  Remove
                </Button>
              </Td>
            </tr>
          ))}
        </Table>
      ) : (
        <p className="text-sm text-slate-600">No domain yet.</p>
      )}
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate({ domain });
        }}
      >
        <TextField label="Add a domain" placeholder="example.com" value={domain} onChange={(e) => (setDomain(e.target.value), add.reset())} />
        <Button type="submit" variant="secondary" busy={add.isPending} disabled={!domain.trim()}>
          Add domain
        </Button>
      </form>
      {[add, verify, remove].map((m, i) => (m.isError ? <ErrorState key={i} error={m.error} /> : null))}
    </section>
  );
}

/** Keyed by the connection's last change, which remounts it after a save: the "Saved." notice is its parent's. */
function ConnectionForm({ sso, saved, onSaved }: { sso: SsoShow; saved: boolean; onSaved: (saved: boolean) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useQuery(trpc.roles.list.queryOptions());
  const c = sso.connection;
  const [f, setF] = useState({
    kind: c?.kind ?? "oidc",
    issuer: c?.kind === "oidc" ? (c.issuer ?? "") : "",
    clientId: c?.client_id ?? "",
    clientSecret: "",
    metadataUrl: c?.saml_metadata_url ?? "",
    metadataXml: "",
    defaultRole: c?.default_role ?? "member",
    requireSso: c?.require_sso ?? false,
    allowIdpInitiated: c?.allow_idp_initiated ?? false,
  });
  const save = useMutation(trpc.sso.set.mutationOptions({ onSuccess: () => (onSaved(true), void queryClient.invalidateQueries({ queryKey: trpc.sso.get.queryKey() })) }));
  const change = (patch: Partial<typeof f>) => (setF({ ...f, ...patch }), save.reset(), onSaved(false));
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const common = { default_role: f.defaultRole, require_sso: f.requireSso, allow_idp_initiated: f.allowIdpInitiated };
    if (f.kind === "oidc") save.mutate({ kind: "oidc", issuer: f.issuer.trim(), client_id: f.clientId.trim(), ...(f.clientSecret ? { client_secret: f.clientSecret } : {}), ...common });
    else save.mutate({ kind: "saml", ...(f.metadataXml.trim() ? { metadata_xml: f.metadataXml } : { metadata_url: f.metadataUrl.trim() }), ...common });
  }
  const customRoles = (roles.data ?? []).map((r) => r.name);
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Single sign-on connection">
      <h3 className="text-sm font-semibold">{c ? "Change the connection" : "Connect an identity provider"}</h3>
      <SelectField label="Protocol" value={f.kind} onChange={(e) => change({ kind: e.target.value as "oidc" | "saml" })}>
        <option value="oidc">OpenID Connect</option>
        <option value="saml">SAML 2.0</option>
      </SelectField>
      {f.kind === "oidc" ? (
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField label="Issuer URL" placeholder="https://login.example.com" value={f.issuer} onChange={(e) => change({ issuer: e.target.value })} />
          <TextField label="Client ID" value={f.clientId} onChange={(e) => change({ clientId: e.target.value })} />
          <TextField
            label="Client secret"
            type="password"
            autoComplete="off"
            placeholder={c?.client_secret_set ? "unchanged" : ""}
            hint={c?.client_secret_set ? "Stored; leave empty to keep it." : undefined}
            value={f.clientSecret}
            onChange={(e) => change({ clientSecret: e.target.value })}
          />
        </div>
      ) : (
        <div className="grid gap-4">
          <TextField label="IdP metadata URL" placeholder="https://idp.example.com/metadata.xml" value={f.metadataUrl} onChange={(e) => change({ metadataUrl: e.target.value })} />
          <TextareaField label="Or the IdP metadata XML" value={f.metadataXml} onChange={(e) => change({ metadataXml: e.target.value })} />
        </div>
      )}
      <SelectField label="Role of a new member" className="w-60" value={f.defaultRole} onChange={(e) => change({ defaultRole: e.target.value })}>
        {[...BUILT_IN, ...customRoles].map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </SelectField>
      <CheckField
        label="Require single sign-on"
        note="People of the verified domains can no longer sign in with a password or GitHub, nor sign up with one; their sessions opened another way end."
        checked={f.requireSso}
        onChange={(v) => change({ requireSso: v })}
      />
      {f.kind === "saml" ? (
        <CheckField label="Accept sign-ins started at the identity provider" note="IdP-initiated SAML: each answer is still accepted once." checked={f.allowIdpInitiated} onChange={(v) => change({ allowIdpInitiated: v })} />
      ) : null}
      <div className="flex items-center gap-3">
        <Button type="submit" busy={save.isPending}>
          Save connection
        </Button>
        <p aria-live="polite" className="text-sm text-green-700">
          {saved ? "Saved." : null}
        </p>
      </div>
      {save.isError ? <ErrorState error={save.error} /> : null}
    </form>
  );
}

function Connection({ sso }: { sso: SsoShow }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.sso.remove.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.sso.get.queryKey() }) }));
  const [saved, setSaved] = useState(false);
  const c = sso.connection;
  return (
    <div className="flex flex-col gap-6">
      {c ? (
        <>
          <p className="text-sm">
            <Badge tone="indigo">{c.kind === "oidc" ? "OpenID Connect" : "SAML 2.0"}</Badge> <span className="break-all">{c.issuer}</span>
            {c.require_sso ? (
              <>
                {" "}
                <Badge tone="amber">required</Badge>
              </>
            ) : null}
          </p>
          {sso.urls ? <Urls kind={c.kind} urls={sso.urls} /> : null}
          <Domains sso={sso} />
        </>
      ) : (
        <p className="text-sm text-slate-600">No identity provider is connected. The addresses to register appear once the connection is saved.</p>
      )}
      <ConnectionForm key={c?.updated_at ?? 0} sso={sso} saved={saved} onSaved={setSaved} />
      {c ? (
        <ConfirmInRow
          label="Remove single sign-on"
          ariaLabel="Remove single sign-on"
          confirmAriaLabel="Confirm removing single sign-on"
          note="Its members will sign in with a password again (those without one must reset it)."
          confirmLabel="Yes, remove"
          busy={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate()}
        />
      ) : null}
    </div>
  );
}

export function SsoSettings() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const owner = may(workspace, "sso.manage");
  // The address this page is open at: the URLs when the gateway has no configured origin (display only).
  const [origin, setOrigin] = useState<string | null>(null);
  useEffect(() => setOrigin(window.location.origin), []);
  const sso = useQuery({ ...trpc.sso.get.queryOptions({ origin: origin ?? undefined }), enabled: owner && origin !== null });
  return (
    <Card title="Single sign-on">
      {!owner ? (
        <p className="text-sm text-slate-600">The workspace&apos;s owners set up single sign-on.</p>
      ) : sso.isPending ? (
        <Loading label="Loading single sign-on…" />
      ) : sso.isError ? (
        <ErrorState error={sso.error} onRetry={() => void sso.refetch()} />
      ) : (
        <Connection sso={sso.data} />
      )}
    </Card>
  );
}
