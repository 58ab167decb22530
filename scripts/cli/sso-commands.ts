// sso set|show|remove and domain verify: a workspace's single sign-on connection and its e-mail
// domains (docs/SSO.md). The provider is checked when the connection is set (OIDC discovery, or
// the SAML metadata read); the client secret is stored sealed and never printed.
import { readFileSync } from "node:fs";
import { cliActor } from "../../server/audit/actor";
import { env } from "../../server/infra/env";
import type { SsoSetInput, SsoShow } from "../../server/identity/sso/connection-schemas";
import { removeConnection, setConnection, showSso } from "../../server/identity/sso/connections";
import { verifyDomain } from "../../server/identity/sso/domains";
import { configuredOrigin, ssoUrls } from "../../server/identity/sso/sso-urls";
import { parse, required, UsageError, type Command } from "./args";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

/** The origin the identity provider reaches the gateway at; without NEXTAUTH_URL or PUBLIC_BASE_URL, a guess (with a warning). */
function origin(): string {
  const configured = configuredOrigin();
  if (configured) return configured;
  process.stderr.write(`warning: neither NEXTAUTH_URL nor PUBLIC_BASE_URL is set; the URLs below assume http://localhost:${env.PORT}\n`);
  return `http://localhost:${env.PORT}`;
}

function metadataInput(value: string): { metadata_url: string } | { metadata_xml: string } {
  if (/^https?:\/\//i.test(value)) return { metadata_url: value };
  try {
    return { metadata_xml: readFileSync(value, "utf8") };
  } catch (err) {
    throw new UsageError(`--saml-metadata: cannot read ${value} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

function showText(s: SsoShow): string {
  if (!s.connection) return "No single sign-on connection.";
  const c = s.connection;
  const lines = [
    `${c.id}: ${c.kind.toUpperCase()} ${c.issuer ?? ""}${c.client_id ? ` (client ${c.client_id})` : ""}`,
    `default role ${c.default_role}; require SSO ${c.require_sso ? "on" : "off"}; IdP-initiated ${c.allow_idp_initiated ? "allowed" : "refused"}`,
  ];
  if (s.urls) {
    const u = s.urls;
    lines.push(
      c.kind === "oidc" ? `redirect URI:  ${u.oidc_redirect_uri}` : `ACS URL:       ${u.saml_acs_url}\nSP entity ID:  ${u.saml_sp_entity_id}\nSP metadata:   ${u.saml_metadata_url}`,
      `sign-in URL:   ${u.sign_in_url}`,
    );
  }
  lines.push("", table(s.domains.map((d) => ({ domain: d.domain, verified: d.verified, txt_name: d.txt_name, txt_value: d.txt_value }))));
  return lines.join("\n");
}

export const ssoCommands: Record<string, Command> = {
  "sso set": (argv) => {
    const { values, args } = parse(
      argv,
      {
        "oidc-issuer": { type: "string" },
        "client-id": { type: "string" },
        "client-secret": { type: "string" },
        "saml-metadata": { type: "string" },
        domain: { type: "string", multiple: true },
        "default-role": { type: "string" },
        require: { type: "boolean" },
        "no-require": { type: "boolean" },
        "idp-initiated": { type: "boolean" },
      },
      ["WORKSPACE_ID"],
    );
    const oidc = values["oidc-issuer"] !== undefined;
    const saml = values["saml-metadata"] !== undefined;
    if (oidc === saml) throw new UsageError("give either --oidc-issuer (with --client-id and --client-secret) or --saml-metadata");
    if (values.require && values["no-require"]) throw new UsageError("--require and --no-require contradict each other");
    const domains = values.domain ?? [];
    if (!domains.length) throw new UsageError("--domain is required (repeat it for several domains)");
    const common = {
      domains,
      default_role: values["default-role"],
      require_sso: values.require ? true : values["no-require"] ? false : undefined,
      allow_idp_initiated: Boolean(values["idp-initiated"]),
    };
    const input: SsoSetInput = oidc
      ? { kind: "oidc", issuer: values["oidc-issuer"]!, client_id: required(values["client-id"], "client-id"), client_secret: required(values["client-secret"], "client-secret"), ...common }
      : { kind: "saml", ...metadataInput(values["saml-metadata"]!), ...common };
    return async () => {
      await requireWorkspace(args[0]!);
      const set = await setConnection(args[0]!, input, cliActor());
      const shown = { ...set, urls: ssoUrls(origin(), set.connection.id) };
      return { json: shown, text: `Single sign-on set (${set.connection.id}).\n${showText(shown)}`, asJson: values.json };
    };
  },
  "sso show": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const shown = await showSso(args[0]!, null);
      const full = shown.connection ? { ...shown, urls: ssoUrls(origin(), shown.connection.id) } : shown;
      return { json: full, text: showText(full), asJson: values.json };
    };
  },
  "sso remove": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const removed = await removeConnection(args[0]!, cliActor());
      return { json: removed, text: `Removed single sign-on connection ${removed.id}; its members sign in with a password again.`, asJson: values.json };
    };
  },
  "domain verify": (argv) => {
    const { values, args } = parse(argv, { operator: { type: "boolean" } }, ["WORKSPACE_ID", "DOMAIN"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const domain = await verifyDomain(args[0]!, args[1]!, { operator: Boolean(values.operator) }, cliActor());
      return { json: domain, text: `${domain.domain} is verified (${domain.verified_by}).`, asJson: values.json };
    };
  },
};
