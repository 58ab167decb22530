import type { z } from "zod";
import { cliActor } from "../../server/audit/actor";
import { createWebhook, deleteWebhook, listWebhooks, ZWebhookInput, type WebhookView } from "../../server/alerts/webhooks";
import { parse, required, type Command } from "./args";
import { amount, checked, list } from "./flag-values";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

/** The service's field names and the flags that set them. */
const FLAG_OF: Record<string, string> = { url: "url", events: "events", balance_below: "balance-below", spend_share: "spend-share" };

const webhookRows = (hooks: WebhookView[]) =>
  hooks.map((w) => ({ id: w.id, url: w.url, events: w.events.join(","), balance_below: w.balance_below, spend_share: w.spend_share, enabled: w.enabled }));

export const webhookCommands: Record<string, Command> = {
  "webhook add": (argv) => {
    const { values, args } = parse(
      argv,
      { url: { type: "string" }, events: { type: "string" }, "balance-below": { type: "string" }, "spend-share": { type: "string" } },
      ["WORKSPACE_ID"],
    );
    const input = checked(
      ZWebhookInput,
      {
        url: required(values.url, "url"),
        events: list(required(values.events, "events")) as z.input<typeof ZWebhookInput>["events"],
        balance_below: amount(values["balance-below"], "balance-below") ?? null,
        spend_share: values["spend-share"] ?? null,
      },
      FLAG_OF,
    );
    return async () => {
      await requireWorkspace(args[0]!);
      const webhook = await createWebhook(args[0]!, input, cliActor());
      return {
        json: webhook,
        text: `Webhook ${webhook.id} -> ${webhook.url} (${webhook.events.join(", ")}).\nSigning secret (shown once): ${webhook.secret}`,
        asJson: values.json,
      };
    };
  },
  "webhook list": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const webhooks = await listWebhooks(args[0]!);
      return { json: { webhooks }, text: table(webhookRows(webhooks)), asJson: values.json };
    };
  },
  "webhook remove": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "WEBHOOK_ID"]);
    return async () => {
      const removed = await deleteWebhook(args[0]!, args[1]!, cliActor());
      return { json: removed, text: `Removed webhook ${removed.id}.`, asJson: values.json };
    };
  },
};
