// Who made a change the audit log records: a signed-in dashboard user, the operators' CLI (with
// the OS account that ran it, the only identity a shell has), or the gateway itself (a change no
// person asked for, or a service called without an actor).
import { userInfo } from "node:os";

export type AuditActor =
  | { type: "user"; id: string; email: string }
  | { type: "cli"; osUser: string }
  | { type: "system"; name: string };

export const userActor = (user: { id: string; email: string }): AuditActor => ({ type: "user", id: user.id, email: user.email });

/** The CLI's actor: the OS user running it (`USER` when the account has no passwd entry). */
export function cliActor(): AuditActor {
  let osUser: string;
  try {
    osUser = userInfo().username;
  } catch {
    osUser = process.env.USER ?? "unknown";
  }
  return { type: "cli", osUser };
}

export const SYSTEM_ACTOR: AuditActor = { type: "system", name: "gateway" };

/** A change made through the API with a workspace key (revoking the sessions it minted): the key names it. */
export const keyActor = (keyId: string): AuditActor => ({ type: "system", name: `api key ${keyId}` });

/** A change made by the workspace's identity provider through SCIM (its token names it). */
export const scimActor = (tokenId: string): AuditActor => ({ type: "system", name: `scim token ${tokenId}` });

/** A change made by a single sign-on (a member created just in time): the connection names it. */
export const ssoActor = (connectionId: string): AuditActor => ({ type: "system", name: `sso connection ${connectionId}` });

/** The columns an actor is stored as. */
export function actorColumns(actor: AuditActor): { actorType: AuditActor["type"]; actorId: string | null; actorName: string } {
  if (actor.type === "user") return { actorType: "user", actorId: actor.id, actorName: actor.email };
  if (actor.type === "cli") return { actorType: "cli", actorId: null, actorName: actor.osUser };
  return { actorType: "system", actorId: null, actorName: actor.name };
}
