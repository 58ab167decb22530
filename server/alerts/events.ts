// The events a webhook may subscribe to, and the body of a delivery.
import { z } from "zod";

export const ALERT_EVENTS = ["balance.low", "spend.threshold", "budget.exceeded", "node.down", "node.up", "video.failed", "guardrail.blocked"] as const;
export type AlertType = (typeof ALERT_EVENTS)[number];
export const ZAlertType = z.enum(ALERT_EVENTS);

/** What is POSTed to a webhook (docs/ALERTS.md lists each type's `data`). */
export type AlertBody = { id: string; type: AlertType; created_at: number; workspace_id: string; data: Record<string, unknown> };
