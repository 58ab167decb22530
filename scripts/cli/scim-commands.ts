// `scim token`: a new SCIM token for a workspace (older ones are revoked) and the base URL to
// give the identity provider. `scim group-role`: the role a SCIM group gives its members.
import { cliActor } from "../../server/audit/actor";
import { GROUP_ROLES } from "../../server/identity/scim/group-roles";
import { mapGroup, type MapGroupInput } from "../../server/identity/scim/group-mapping";
import { createScimToken } from "../../server/identity/scim/scim-tokens";
import { configuredOrigin, scimBaseUrl } from "../../server/identity/scim/scim-urls";
import { env } from "../../server/infra/env";
import { parse, UsageError, type Command } from "./args";
import { NONE } from "./flag-values";
import { requireWorkspace } from "./require-workspace";

/** A built-in role other than owner, `none`, or else the name (or id) of a custom role. */
function mappingOf(role: string): Omit<MapGroupInput, "group"> {
  if (role === NONE) return { role: null, customRole: null };
  if (role === "owner") throw new UsageError("A SCIM group cannot give the owner role: owners are made in the dashboard or with the CLI's member commands.");
  if ((GROUP_ROLES as readonly string[]).includes(role)) return { role: role as (typeof GROUP_ROLES)[number] };
  return { customRole: role };
}

export const scimCommands: Record<string, Command> = {
  "scim token": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      if (!configuredOrigin()) process.stderr.write(`warning: neither NEXTAUTH_URL nor PUBLIC_BASE_URL is set; the base URL below assumes http://localhost:${env.PORT}\n`);
      const base_url = scimBaseUrl(`http://localhost:${env.PORT}`);
      const made = await createScimToken(args[0]!, cliActor());
      return {
        json: { base_url, token: made.token, id: made.id, start: made.start },
        text: `SCIM base URL: ${base_url}\nToken (shown once; older tokens are revoked): ${made.token}`,
        asJson: values.json,
      };
    };
  },
  "scim group-role": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "GROUP", "ROLE"]);
    const mapping = mappingOf(args[2]!);
    return async () => {
      await requireWorkspace(args[0]!);
      const group = await mapGroup(args[0]!, { group: args[1]!, ...mapping }, cliActor());
      const gives = group.role ?? group.custom_role?.name ?? "no role of its own (members get the default)";
      return { json: { group }, text: `SCIM group ${group.display_name} (${group.id}, ${group.members} members) now gives ${gives}.`, asJson: values.json };
    };
  },
};
