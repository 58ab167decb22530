import { cliActor } from "../../server/audit/actor";
import { addCredits, ZAddCreditsInput } from "../../server/ledger/add-credits";
import { createWorkspace, ZCreateWorkspaceInput } from "../../server/onboarding/create-workspace";
import { getWorkspace, listWorkspaces } from "../../server/identity/workspaces/get-workspace";
import { setWorkspaceLimits, ZWorkspaceLimits } from "../../server/identity/plans/manage-plans";
import { parse, required, type Command } from "./args";
import { checked, limit } from "./flag-values";
import { keyRows } from "./key-commands";
import { table } from "./output";

// Each command checks its arguments first and returns the work to run once connected.
export const workspaceCommands: Record<string, Command> = {
  "workspace create": (argv) => {
    const { values } = parse(argv, { name: { type: "string" }, credits: { type: "string" } }, []);
    const input = ZCreateWorkspaceInput.parse({ name: required(values.name, "name"), credits: values.credits ?? "0", withKey: true });
    return async () => {
      const created = await createWorkspace(input, cliActor());
      const { id, name, balance } = created.workspace;
      const secret = created.apiKey!.secret;
      return {
        json: { workspace: { id, name, balance }, apiKey: secret },
        text: `Created workspace ${id} (${name}) with balance ${balance} USD.\nAPI key (shown only once): ${secret}`,
        asJson: values.json,
      };
    };
  },
  "workspace show": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      const detail = await getWorkspace(args[0]!);
      const w = detail.workspace;
      return {
        json: detail,
        text: `${w.id}  ${w.name}\nbalance ${w.balance} USD (credits ${w.creditsTotal}, usage ${w.usageTotal})\nmembers ${w.members}\n\nAPI keys:\n${table(keyRows(detail.keys))}`,
        asJson: values.json,
      };
    };
  },
  "workspace list": (argv) => {
    const { values } = parse(argv, {}, []);
    return async () => {
      const workspaces = await listWorkspaces();
      return { json: { workspaces }, text: table(workspaces.map((w) => ({ ...w }))), asJson: values.json };
    };
  },
  "credits add": (argv) => {
    const { values, args } = parse(argv, { note: { type: "string" } }, ["WORKSPACE_ID", "USD"]);
    const input = ZAddCreditsInput.parse({ workspaceId: args[0]!, amount: args[1]!, note: values.note });
    return async () => {
      const workspace = await addCredits(input, cliActor());
      return { json: { workspace }, text: `Added ${args[1]} USD to ${workspace.id}; balance is now ${workspace.balance} USD.`, asJson: values.json };
    };
  },
  "workspace limits": (argv) => {
    const { values, args } = parse(argv, { rpm: { type: "string" }, tpm: { type: "string" }, concurrency: { type: "string" } }, ["WORKSPACE_ID"]);
    // A flag not given is left out (undefined), which leaves that default as it is.
    const given = Object.entries({ rpm: limit(values.rpm, "rpm"), tpm: limit(values.tpm, "tpm"), concurrency: limit(values.concurrency, "concurrency") });
    const input = checked(ZWorkspaceLimits, Object.fromEntries(given.filter(([, v]) => v !== undefined)), { rpm: "rpm", tpm: "tpm", concurrency: "concurrency" });
    return async () => {
      const limits = await setWorkspaceLimits(args[0]!, input, cliActor());
      const shown = Object.entries(limits).map(([k, v]) => `${k} ${v ?? "none"}`).join(", ");
      return { json: { workspaceId: args[0], limits }, text: `Default limits of ${args[0]} (where a plan sets none): ${shown}.`, asJson: values.json };
    };
  },
};
