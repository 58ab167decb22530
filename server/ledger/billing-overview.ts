// A workspace's money at a glance: its balance, and the ledger of credits (CreditLedgerEntry) and
// charges (usage events, one line per UTC day so the ledger stays readable), newest first.
// Every amount is summed by PostgreSQL in numeric and travels as a decimal string.
import { z } from "zod";
import { db } from "../infra/db/client";
import { errors } from "../kernel/errors";
import { formatMoney } from "../kernel/money";

export const ZLedgerInput = z.object({
  page: z.number().int().min(1).max(100_000).default(1),
  pageSize: z.number().int().min(1).max(100).default(20),
});
export type LedgerInput = z.input<typeof ZLedgerInput>;

export const ZLedgerEntry = z.object({
  id: z.string(),
  kind: z.enum(["credit", "adjustment", "charge"]),
  /** For a charge, the time of the day's last call. */
  at: z.string(),
  /** Signed USD: credits positive, charges negative. */
  amount: z.string(),
  description: z.string(),
  createdBy: z.object({ name: z.string().nullable(), email: z.string().nullable() }).nullable(),
});
export const ZLedgerPage = z.object({ entries: z.array(ZLedgerEntry), page: z.number(), hasMore: z.boolean() });
export type LedgerPage = z.infer<typeof ZLedgerPage>;

export const ZBillingOverview = z.object({
  workspaceId: z.string(),
  balance: z.string(),
  creditsTotal: z.string(),
  chargesTotal: z.string(),
  /** Held for video jobs still running; released or settled when they finish. */
  reservedTotal: z.string(),
});
export type BillingOverview = z.infer<typeof ZBillingOverview>;

type Row = {
  id: string;
  kind: "credit" | "adjustment" | "charge";
  at: string;
  amount: string;
  note: string | null;
  requests: number | null;
  userName: string | null;
  userEmail: string | null;
};

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

function describe(r: Row): string {
  if (r.kind !== "charge") return r.note ?? (r.kind === "credit" ? "Credits added" : "Adjustment");
  const n = Number(r.requests ?? 0);
  return `Usage on ${r.id.slice("usage-".length)} (${n.toLocaleString("en-US")} request${n === 1 ? "" : "s"})`;
}

export async function billingLedger(workspaceId: string, input: LedgerInput): Promise<LedgerPage> {
  const { page, pageSize } = ZLedgerInput.parse(input);
  const rows = await db.$queryRawUnsafe<(Row & { sortAt: Date })[]>(
    `SELECT * FROM (
       SELECT l."id", l."kind"::text AS kind, to_char(l."createdAt", ${ISO}) AS at, l."createdAt" AS "sortAt",
         l."amount"::text AS amount, l."note", NULL::float8 AS requests, u."name" AS "userName", u."email" AS "userEmail"
       FROM "CreditLedgerEntry" l LEFT JOIN "User" u ON u."id" = l."createdById"
       WHERE l."workspaceId" = $1
       UNION ALL
       SELECT 'usage-' || to_char(date_trunc('day', e."createdAt"), 'YYYY-MM-DD'), 'charge', to_char(MAX(e."createdAt"), ${ISO}),
         MAX(e."createdAt"), (-SUM(e."cost"))::text, NULL, COUNT(*)::float8, NULL, NULL
       FROM "UsageEvent" e WHERE e."workspaceId" = $1
       GROUP BY date_trunc('day', e."createdAt")
     ) x
     ORDER BY "sortAt" DESC, "id" DESC
     LIMIT $2 OFFSET $3`,
    workspaceId,
    pageSize + 1,
    (page - 1) * pageSize,
  );
  return {
    page,
    hasMore: rows.length > pageSize,
    entries: rows.slice(0, pageSize).map((r) => ({
      id: r.id,
      kind: r.kind,
      at: r.at,
      amount: formatMoney(r.amount),
      description: describe(r),
      createdBy: r.userName || r.userEmail ? { name: r.userName, email: r.userEmail } : null,
    })),
  };
}

export async function billingOverview(workspaceId: string): Promise<BillingOverview> {
  const [row] = await db.$queryRaw<{ balance: string; credits: string; charges: string; reserved: string }[]>`
    SELECT w."balance"::text AS balance,
      (SELECT COALESCE(SUM("amount"), 0) FROM "CreditLedgerEntry" WHERE "workspaceId" = w."id")::text AS credits,
      (SELECT COALESCE(SUM("cost"), 0) FROM "UsageEvent" WHERE "workspaceId" = w."id")::text AS charges,
      (SELECT COALESCE(SUM("reservedAmount"), 0) FROM "VideoJob" WHERE "workspaceId" = w."id" AND "status" IN ('queued', 'in_progress'))::text AS reserved
    FROM "Workspace" w WHERE w."id" = ${workspaceId}`;
  if (!row) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
  return {
    workspaceId,
    balance: formatMoney(row.balance),
    creditsTotal: formatMoney(row.credits),
    chargesTotal: formatMoney(row.charges),
    reservedTotal: formatMoney(row.reserved),
  };
}
