import { db } from "../../server/infra/db/client";
import { createKey, ZCreateKeyInput } from "../../server/identity/keys/create-key";
import { listKeys } from "../../server/identity/keys/list-keys";
import { revokeKey } from "../../server/identity/keys/revoke-key";
import type { KeyView } from "../../server/identity/keys/key-view";
import { addCredits, ZAddCreditsInput } from "../../server/ledger/add-credits";
import { createWorkspace, ZCreateWorkspaceInput } from "../../server/identity/workspaces/create-workspace";
import { getWorkspace, listWorkspaces } from "../../server/identity/workspaces/get-workspace";
import { parse, required, UsageError, type Command } from "./args";
import { table } from "./output";

const keyRows = (keys: KeyView[]) =>
  keys.map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, created: k.createdAt, lastUsed: k.lastUsedAt, expires: k.expiresAt, revoked: k.revokedAt }));

// Each command checks its arguments first and returns the work to run once connected.
export const workspaceCommands: Record<string, Command> = {
  "workspace create": (argv) => {
    const { values } = parse(argv, { name: { type: "string" }, credits: { type: "string" } }, []);
    const input = ZCreateWorkspaceInput.parse({ name: required(values.name, "name"), credits: values.credits ?? "0", withKey: true });
    return async () => {
      const created = await createWorkspace(input);
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
      const workspace = await addCredits(input);
      return { json: { workspace }, text: `Added ${args[1]} USD to ${workspace.id}; balance is now ${workspace.balance} USD.`, asJson: values.json };
    };
  },
  "key create": (argv) => {
    const { values, args } = parse(argv, { name: { type: "string" }, expires: { type: "string" } }, ["WORKSPACE_ID"]);
    const expiresAt = values.expires ? new Date(values.expires) : undefined;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError("--expires must be an ISO date");
    const input = ZCreateKeyInput.parse({ workspaceId: args[0]!, name: values.name, expiresAt });
    return async () => {
      const { key, secret } = await db.$transaction((tx) => createKey(tx, input));
      return { json: { key, apiKey: secret }, text: `Created key ${key.id} (${key.name}).\nAPI key (shown only once): ${secret}`, asJson: values.json };
    };
  },
  "key list": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await getWorkspace(args[0]!); // 404 for an unknown workspace rather than an empty list
      const keys = await listKeys(args[0]!);
      return { json: { keys }, text: table(keyRows(keys)), asJson: values.json };
    };
  },
  "key revoke": (argv) => {
    const { values, args } = parse(argv, {}, ["KEY_ID"]);
    return async () => {
      const key = await revokeKey(args[0]!);
      return { json: { key }, text: `Revoked key ${key.id} (${key.name}).`, asJson: values.json };
    };
  },
};
