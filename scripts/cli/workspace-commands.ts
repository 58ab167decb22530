import { db } from "../../server/db/client";
import { createKey } from "../../server/keys/create-key";
import { listKeys } from "../../server/keys/list-keys";
import { revokeKey } from "../../server/keys/revoke-key";
import type { KeyView } from "../../server/keys/key-view";
import { addCredits } from "../../server/workspaces/add-credits";
import { createWorkspace } from "../../server/workspaces/create-workspace";
import { getWorkspace, listWorkspaces } from "../../server/workspaces/get-workspace";
import { parse, required, UsageError } from "./args";
import { table, type Output } from "./output";

const keyRows = (keys: KeyView[]) =>
  keys.map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, created: k.createdAt, lastUsed: k.lastUsedAt, expires: k.expiresAt, revoked: k.revokedAt }));

export const workspaceCommands = {
  "workspace create": async (argv: string[]): Promise<[Output, boolean?]> => {
    const { values } = parse(argv, { name: { type: "string" }, credits: { type: "string" } }, []);
    const created = await createWorkspace({ name: required(values.name, "name"), credits: values.credits ?? "0", withKey: true });
    const { id, name, balance } = created.workspace;
    const secret = created.apiKey!.secret;
    return [
      {
        json: { workspace: { id, name, balance }, apiKey: secret },
        text: `Created workspace ${id} (${name}) with balance ${balance} USD.\nAPI key (shown only once): ${secret}`,
      },
      values.json,
    ];
  },
  "workspace show": async (argv: string[]): Promise<[Output, boolean?]> => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    const detail = await getWorkspace(args[0]!);
    const w = detail.workspace;
    return [
      {
        json: detail,
        text: `${w.id}  ${w.name}\nbalance ${w.balance} USD (credits ${w.creditsTotal}, usage ${w.usageTotal})\nmembers ${w.members}\n\nAPI keys:\n${table(keyRows(detail.keys))}`,
      },
      values.json,
    ];
  },
  "workspace list": async (argv: string[]): Promise<[Output, boolean?]> => {
    const { values } = parse(argv, {}, []);
    const workspaces = await listWorkspaces();
    return [{ json: { workspaces }, text: table(workspaces.map((w) => ({ ...w }))) }, values.json];
  },
  "credits add": async (argv: string[]): Promise<[Output, boolean?]> => {
    const { values, args } = parse(argv, { note: { type: "string" } }, ["WORKSPACE_ID", "USD"]);
    const workspace = await addCredits({ workspaceId: args[0]!, amount: args[1]!, note: values.note });
    return [{ json: { workspace }, text: `Added ${args[1]} USD to ${workspace.id}; balance is now ${workspace.balance} USD.` }, values.json];
  },
  "key create": async (argv: string[]): Promise<[Output, boolean?]> => {
    const { values, args } = parse(argv, { name: { type: "string" }, expires: { type: "string" } }, ["WORKSPACE_ID"]);
    const expiresAt = values.expires ? new Date(values.expires) : undefined;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError("--expires must be an ISO date");
    const { key, secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: args[0]!, name: values.name, expiresAt }));
    return [{ json: { key, apiKey: secret }, text: `Created key ${key.id} (${key.name}).\nAPI key (shown only once): ${secret}` }, values.json];
  },
  "key list": async (argv: string[]): Promise<[Output, boolean?]> => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    await getWorkspace(args[0]!); // 404 for an unknown workspace rather than an empty list
    const keys = await listKeys(args[0]!);
    return [{ json: { keys }, text: table(keyRows(keys)) }, values.json];
  },
  "key revoke": async (argv: string[]): Promise<[Output, boolean?]> => {
    const { values, args } = parse(argv, {}, ["KEY_ID"]);
    const key = await revokeKey(args[0]!);
    return [{ json: { key }, text: `Revoked key ${key.id} (${key.name}).` }, values.json];
  },
};
