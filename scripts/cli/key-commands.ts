import { cliActor } from "../../server/audit/actor";
import { db } from "../../server/infra/db/client";
import { createKey, ZCreateKeyInput } from "../../server/identity/keys/create-key";
import { listKeys } from "../../server/identity/keys/list-keys";
import { revokeKey } from "../../server/identity/keys/revoke-key";
import { setKeyPlan } from "../../server/identity/keys/set-key-plan";
import type { KeyView } from "../../server/identity/keys/key-view";
import type { KeyPermission } from "../../server/identity/keys/permissions";
import { parse, UsageError, type Command } from "./args";
import { checked, list, NONE } from "./flag-values";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

export const keyRows = (keys: KeyView[]) =>
  keys.map((k) => ({
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    plan: k.planId,
    permissions: k.permissions?.join(",") ?? "all",
    models: k.models?.join(",") ?? "all",
    tools: k.tools?.join(",") ?? "all",
    created: k.createdAt,
    lastUsed: k.lastUsedAt,
    expires: k.expiresAt,
    revoked: k.revokedAt,
  }));

export const keyCommands: Record<string, Command> = {
  "key create": (argv) => {
    const { values, args } = parse(
      argv,
      { name: { type: "string" }, expires: { type: "string" }, plan: { type: "string" }, permissions: { type: "string" }, models: { type: "string" }, tools: { type: "string" } },
      ["WORKSPACE_ID"],
    );
    const expiresAt = values.expires ? new Date(values.expires) : undefined;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError("--expires must be an ISO date");
    if (values.plan === "") throw new UsageError("--plan needs a plan id");
    // Without --permissions (or --models, --tools) the key may call every operation (model, tool);
    // the schema refuses an unknown permission or a bad tool pattern, naming the flag, before the
    // database is touched.
    const input = checked(
      ZCreateKeyInput,
      { workspaceId: args[0]!, name: values.name, expiresAt, planId: values.plan, permissions: list(values.permissions) as KeyPermission[] | undefined, models: list(values.models), tools: list(values.tools) },
      { permissions: "permissions", models: "models", tools: "tools", name: "name" },
    );
    return async () => {
      const { key, secret } = await db.$transaction((tx) => createKey(tx, input, cliActor()));
      const plan = key.planId ? ` on plan ${key.planId}` : "";
      const may = `permissions: ${key.permissions?.join(", ") ?? "all"}; models: ${key.models?.join(", ") ?? "all"}; tools: ${key.tools?.join(", ") ?? "all"}`;
      return { json: { key, apiKey: secret }, text: `Created key ${key.id} (${key.name})${plan}, ${may}.\nAPI key (shown only once): ${secret}`, asJson: values.json };
    };
  },
  "key set-plan": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "KEY_ID", "PLAN_ID|none"]);
    const [workspaceId, keyId, plan] = args as [string, string, string];
    const planId = plan === NONE ? null : plan;
    return async () => {
      const key = await setKeyPlan(workspaceId, keyId, planId, cliActor());
      const text = key.planId ? `Key ${key.id} (${key.name}) is now on plan ${key.planId}.` : `Key ${key.id} (${key.name}) is on no plan: the workspace's limits apply.`;
      return { json: { key }, text, asJson: values.json };
    };
  },
  "key list": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const keys = await listKeys(args[0]!);
      return { json: { keys }, text: table(keyRows(keys)), asJson: values.json };
    };
  },
  "key revoke": (argv) => {
    const { values, args } = parse(argv, {}, ["KEY_ID"]);
    return async () => {
      const key = await revokeKey(args[0]!, undefined, undefined, cliActor());
      return { json: { key }, text: `Revoked key ${key.id} (${key.name}).`, asJson: values.json };
    };
  },
};
