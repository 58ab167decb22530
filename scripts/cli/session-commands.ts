import { cliActor } from "../../server/audit/actor";
import { listSessions, revokeSession, revokeSubject } from "../../server/identity/sessions/manage-sessions";
import type { SessionView } from "../../server/identity/sessions/session-view";
import { parse, UsageError, type Command } from "./args";
import { wholeNumber } from "./flag-values";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

const iso = (unix: number | null) => (unix === null ? null : new Date(unix * 1000).toISOString());

const sessionRows = (sessions: SessionView[]) =>
  sessions.map((s) => ({
    id: s.id,
    plan: s.plan,
    subject: s.subject,
    spend_cap: s.spend_cap,
    created: iso(s.created_at),
    expires: iso(s.expires_at),
    revoked: iso(s.revoked_at),
  }));

export const sessionCommands: Record<string, Command> = {
  "session list": (argv) => {
    const { values, args } = parse(
      argv,
      { plan: { type: "string" }, subject: { type: "string" }, all: { type: "boolean" }, limit: { type: "string" } },
      ["WORKSPACE_ID"],
    );
    if (values.plan === "") throw new UsageError("--plan needs a plan id");
    if (values.subject === "") throw new UsageError("--subject needs a subject");
    const limit = wholeNumber(values.limit, "limit");
    if (limit !== undefined && limit > 500) throw new UsageError(`--limit must be at most 500, got ${limit}`);
    const filter = { plan: values.plan, subject: values.subject, alive: !values.all, limit };
    return async () => {
      await requireWorkspace(args[0]!);
      const sessions = await listSessions(args[0]!, filter);
      return { json: { sessions }, text: table(sessionRows(sessions)), asJson: values.json };
    };
  },
  "session revoke": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "SESSION_ID"]);
    return async () => {
      const session = await revokeSession(args[0]!, args[1]!, null, cliActor());
      return { json: { session }, text: `Revoked session ${session.id} of ${session.subject}.`, asJson: values.json };
    };
  },
  "session revoke-subject": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "SUBJECT"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const revocation = await revokeSubject(args[0]!, args[1]!, null, cliActor());
      return { json: revocation, text: `Revoked ${revocation.revoked} session(s) of ${revocation.subject}.`, asJson: values.json };
    };
  },
};
