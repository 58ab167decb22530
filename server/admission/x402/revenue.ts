// What x402 payers paid, for operators: revenue per UTC day and per model over the last days
// (from the usage events of the x402 workspace: the ledger's record of each settlement), and
// the latest payments with their state (settled, released, failed). Amounts are exact decimals.
import { db } from "../../infra/db/client";
import { Prisma } from "../../generated/prisma/client";
import { formatMoney, money } from "../../kernel/money";
import { X402_WORKSPACE_ID } from "../../kernel/x402-workspace";
import { utcTimestamp } from "../../ledger/usage/usage-filter";
import { x402Config, x402Enabled } from "./config";

export type RevenueRow = { day: string; model: string; calls: number; revenue: string };
export type PaymentRow = {
  id: string;
  createdAt: string;
  payer: string;
  scheme: string;
  endpoint: string;
  model: string;
  status: string;
  maxAmount: string;
  settledAmount: string | null;
  txHash: string | null;
  errorReason: string | null;
};
export type X402Overview = {
  enabled: boolean;
  network: string | null;
  asset: string | null;
  payTo: string | null;
  days: number;
  total: string;
  calls: number;
  payers: number;
  byDay: { day: string; calls: number; revenue: string }[];
  byModel: { model: string; calls: number; revenue: string }[];
  rows: RevenueRow[];
  payments: PaymentRow[];
};

export async function x402Revenue(days = 30, paymentLimit = 50): Promise<X402Overview> {
  // Whole UTC days: today and the days - 1 before it ("createdAt" is a UTC timestamp without zone).
  const today = new Date();
  const since = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)));
  const paid = Prisma.sql`"workspaceId" = ${X402_WORKSPACE_ID} AND "payer" IS NOT NULL AND "createdAt" >= ${utcTimestamp(since)}`;
  const rows = await db.$queryRaw<{ day: string; model: string; calls: bigint; revenue: string }[]>`
    SELECT to_char(date_trunc('day', "createdAt"), 'YYYY-MM-DD') AS day, "modelId" AS model,
      COUNT(*)::bigint AS calls, SUM("cost")::text AS revenue
    FROM "UsageEvent" WHERE ${paid} GROUP BY 1, 2 ORDER BY 1 DESC, 2`;
  const [{ payers }] = await db.$queryRaw<[{ payers: bigint }]>`SELECT COUNT(DISTINCT "payer")::bigint AS payers FROM "UsageEvent" WHERE ${paid}`;
  const revenueRows: RevenueRow[] = rows.map((r) => ({ day: r.day, model: r.model, calls: Number(r.calls), revenue: formatMoney(r.revenue) }));
  const sum = (list: RevenueRow[]) => list.reduce((acc, r) => acc.plus(r.revenue), money(0));
  const group = <K extends "day" | "model">(key: K) => {
    const map = new Map<string, RevenueRow[]>();
    for (const r of revenueRows) map.set(r[key], [...(map.get(r[key]) ?? []), r]);
    return [...map].map(([k, list]) => ({ [key]: k, calls: list.reduce((n, r) => n + r.calls, 0), revenue: formatMoney(sum(list)) }) as { [P in K]: string } & { calls: number; revenue: string });
  };
  // The latest payments, whatever the window.
  const payments = paymentLimit > 0 ? await db.x402Payment.findMany({ orderBy: { createdAt: "desc" }, take: paymentLimit }) : [];
  // Incomplete settings fail the paid calls, not the page that shows what was earned.
  let config: ReturnType<typeof x402Config> = null;
  try {
    config = x402Config();
  } catch {
    config = null;
  }
  return {
    enabled: x402Enabled(),
    network: config?.network ?? null,
    asset: config?.asset ?? null,
    payTo: config?.payTo ?? null,
    days,
    total: formatMoney(sum(revenueRows)),
    calls: revenueRows.reduce((n, r) => n + r.calls, 0),
    payers: Number(payers),
    byDay: group("day"),
    byModel: group("model").sort((a, b) => (a.model < b.model ? -1 : 1)),
    rows: revenueRows,
    payments: payments.map((p) => ({
      id: p.id,
      createdAt: p.createdAt.toISOString(),
      payer: p.payer,
      scheme: p.scheme,
      endpoint: p.endpoint,
      model: p.modelId,
      status: p.status,
      maxAmount: p.maxAmount.toFixed(0),
      settledAmount: p.settledAmount?.toFixed(0) ?? null,
      txHash: p.txHash,
      errorReason: p.errorReason,
    })),
  };
}
