import { cliActor } from "../../server/audit/actor";
import { addIssuer, listIssuers, removeIssuer, ZIssuerInput, type IssuerView } from "../../server/identity/sessions/trusted-issuers";
import { parse, required, type Command } from "./args";
import { checked } from "./flag-values";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

/** The service's field names and the flags that set them. */
const FLAG_OF: Record<string, string> = {
  issuer: "issuer",
  jwks_url: "jwks-url",
  audience: "audience",
  subject_claim: "subject-claim",
  plan_claim: "plan-claim",
  default_plan: "default-plan",
};

const issuerRows = (issuers: IssuerView[]) =>
  issuers.map((i) => ({
    id: i.id,
    issuer: i.issuer,
    audience: i.audience,
    jwks_url: i.jwks_url,
    subject_claim: i.subject_claim,
    plan_claim: i.plan_claim,
    default_plan: i.default_plan,
  }));

export const issuerCommands: Record<string, Command> = {
  "issuer add": (argv) => {
    const { values, args } = parse(
      argv,
      {
        issuer: { type: "string" },
        "jwks-url": { type: "string" },
        audience: { type: "string" },
        "subject-claim": { type: "string" },
        "plan-claim": { type: "string" },
        "default-plan": { type: "string" },
      },
      ["WORKSPACE_ID"],
    );
    const input = checked(
      ZIssuerInput,
      {
        issuer: required(values.issuer, "issuer"),
        jwks_url: required(values["jwks-url"], "jwks-url"),
        audience: required(values.audience, "audience"),
        subject_claim: values["subject-claim"],
        plan_claim: values["plan-claim"],
        default_plan: values["default-plan"],
      },
      FLAG_OF,
    );
    return async () => {
      await requireWorkspace(args[0]!);
      const issuer = await addIssuer(args[0]!, input, cliActor());
      return { json: { issuer }, text: `Trusting ${issuer.issuer} (audience ${issuer.audience}) as ${issuer.id}.`, asJson: values.json };
    };
  },
  "issuer list": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const issuers = await listIssuers(args[0]!);
      return { json: { issuers }, text: table(issuerRows(issuers)), asJson: values.json };
    };
  },
  "issuer remove": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "ISSUER_ID"]);
    return async () => {
      const removed = await removeIssuer(args[0]!, args[1]!, cliActor());
      return { json: removed, text: `Removed trusted issuer ${removed.id}.`, asJson: values.json };
    };
  },
};
