// A workspace ready for SCIM: an owner, a single sign-on connection with a verified domain of its
// own (each fixture a fresh one: a domain is verified by one workspace at most), and a token.
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { SYSTEM_ACTOR } from "../../server/audit/actor";
import { createScimToken } from "../../server/identity/scim/scim-tokens";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import type { Role } from "../../server/generated/prisma/enums";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { newUser } from "../helpers-dashboard";
import { ScimClient } from "./scim-client";

export async function scimWorkspace(opts: { defaultRole?: Role; withConnection?: boolean } = {}) {
  const owner = await newUser({ name: "Owner" });
  const { workspace } = await createWorkspace({ name: "scim workspace", credits: "5", ownerUserId: owner.id });
  const domain = `scim-${randomBytes(5).toString("hex")}.test`;
  if (opts.withConnection !== false) {
    const connectionId = newId("ssoc");
    await db.ssoConnection.create({
      data: { id: connectionId, workspaceId: workspace.id, kind: "oidc", oidcIssuer: "https://idp.example.test", oidcClientId: "client", defaultRole: opts.defaultRole ?? "member" },
    });
    await db.ssoDomain.create({
      data: { id: newId("ssod"), connectionId, workspaceId: workspace.id, domain, verificationToken: "t", verifiedAt: new Date(), verifiedBy: "operator" },
    });
  }
  const token = await createScimToken(workspace.id, SYSTEM_ACTOR);
  const client = new ScimClient(`${inject("baseUrl")}/scim/v2`, token.token);
  return { workspace, owner, domain, token, client };
}
