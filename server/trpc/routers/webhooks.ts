// Webhooks and their deliveries. Owners and admins only: a webhook sends the workspace's balance,
// spend and budget events to a URL of their choosing, and its secret is shown when it is made.
import { z } from "zod";
import { listDeliveries, ZDeliveryView } from "../../alerts/deliveries";
import { createWebhook, deleteWebhook, listWebhooks, rotateWebhookSecret, updateWebhook, ZWebhookInput, ZWebhookPatch, ZWebhookView, ZWebhookWithSecret } from "../../alerts/webhooks";
import { userActor } from "../../audit/actor";
import { router, workspaceProcedure } from "../init";

/** Owners and admins, or a custom role holding `webhooks.manage`. */
const managerProcedure = workspaceProcedure("webhooks.manage");

const ZId = z.object({ id: z.string().min(1) });

export const webhooksRouter = router({
  list: managerProcedure.output(z.array(ZWebhookView)).query(({ ctx }) => listWebhooks(ctx.principal.workspaceId)),
  /** Answers the signing secret: the only time it is shown, with rotateSecret. */
  create: managerProcedure
    .input(ZWebhookInput)
    .output(ZWebhookWithSecret)
    .mutation(({ ctx, input }) => createWebhook(ctx.principal.workspaceId, input, userActor(ctx.user))),
  update: managerProcedure
    .input(ZWebhookPatch)
    .output(ZWebhookView)
    .mutation(({ ctx, input }) => updateWebhook(ctx.principal.workspaceId, input, userActor(ctx.user))),
  delete: managerProcedure
    .input(ZId)
    .output(z.object({ object: z.literal("webhook.deleted"), id: z.string(), deleted: z.literal(true) }))
    .mutation(({ ctx, input }) => deleteWebhook(ctx.principal.workspaceId, input.id, userActor(ctx.user))),
  rotateSecret: managerProcedure
    .input(ZId)
    .output(ZWebhookWithSecret)
    .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.principal.workspaceId, input.id, userActor(ctx.user))),
  /** The webhook's newest deliveries with their attempts. */
  deliveries: managerProcedure
    .input(z.object({ webhookId: z.string().min(1), limit: z.number().int().min(1).max(200).default(50) }))
    .output(z.array(ZDeliveryView))
    .query(({ ctx, input }) => listDeliveries(ctx.principal.workspaceId, input.webhookId, input.limit)),
});
