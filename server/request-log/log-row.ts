// One /v1 call as the request log keeps it (the RequestLog table), served or not.
import type { CapturedBody } from "./capture/body-capture";
import { pgArray, type ArrayElement } from "../infra/db/pg-array";
import type { GuardrailVerdict, RoutingOutcome } from "../kernel/call-outcome";

export type RequestLogRow = {
  id: string;
  /** ISO time the call arrived. */
  createdAt: string;
  workspaceId: string | null;
  method: string;
  route: string;
  model: string | null;
  nodeId: string | null;
  /** api_key, session, x402, user (the dashboard), none */
  credential: string;
  apiKeyId: string | null;
  planId: string | null;
  subject: string | null;
  payer: string | null;
  status: number;
  errorCode: string | null;
  durationMs: number;
  upstreamMs: number | null;
  firstByteMs: number | null;
  inputTokens: number;
  outputTokens: number;
  cost: string | null;
  usageEstimated: boolean;
  cache: string | null;
  tags: Record<string, string> | null;
  clientIp: string | null;
  userAgent: string | null;
  /** A call to a route: the route, the target that answered and every attempt; null for a call that named its model. */
  routing?: RoutingOutcome | null;
  /** What the guardrails that ran on the call said (server/guardrails/); null or absent when none ran. */
  guardrails?: GuardrailVerdict[] | null;
  /** Its request and answer, when the workspace (or the key) captures them: a RequestLogBody row. */
  body?: CapturedBody | null;
};

const MAX_INT = 2_147_483_647;
const count = (n: number) => Math.min(MAX_INT, Math.max(0, Math.round(Number.isFinite(n) ? n : 0)));
const ms = (n: number | null) => (n === null ? null : count(n));

/** The statement's columns, each sent as one array parameter (the statement's text is the same for any batch). */
const COLUMNS: [keyof RequestLogRow, string][] = [
  ["id", "text"], ["createdAt", "text"], ["workspaceId", "text"], ["method", "text"], ["route", "text"], ["model", "text"],
  ["nodeId", "text"], ["credential", "text"], ["apiKeyId", "text"], ["planId", "text"], ["subject", "text"], ["payer", "text"],
  ["status", "int"], ["errorCode", "text"], ["durationMs", "int"], ["upstreamMs", "int"], ["firstByteMs", "int"],
  ["inputTokens", "int"], ["outputTokens", "int"], ["cost", "numeric"], ["usageEstimated", "bool"], ["cache", "text"],
  ["tags", "text"], ["clientIp", "text"], ["userAgent", "text"], ["routing", "text"], ["guardrails", "text"], ["body", "bool"],
];

/** The table's column for a row field (`body` is the `captured` flag; the bodies go to RequestLogBody). */
const column = (c: keyof RequestLogRow) => (c === "body" ? "captured" : c);

const select = COLUMNS.map(([c]) => {
  if (c === "createdAt") return `(i."createdAt"::timestamptz AT TIME ZONE 'UTC')`;
  if (c === "tags" || c === "routing" || c === "guardrails") return `i."${c}"::jsonb`;
  return `i."${c}"`;
});

/** Inserts a batch once: a row already written (a replayed spool) is skipped by its key. */
export const INSERT_SQL = `
  INSERT INTO "RequestLog" (${COLUMNS.map(([c]) => `"${column(c)}"`).join(", ")})
  SELECT ${select.join(", ")}
  FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ")}) AS i(${COLUMNS.map(([c]) => `"${c}"`).join(", ")})
  ON CONFLICT DO NOTHING`;

/** A batch as the statement's parameters: one array literal per column. */
export function insertParams(rows: RequestLogRow[]): string[] {
  return COLUMNS.map(([column]) =>
    pgArray(rows.map((r): ArrayElement => {
      switch (column) {
        case "status":
        case "durationMs":
        case "inputTokens":
        case "outputTokens":
          return count(r[column]);
        case "upstreamMs":
        case "firstByteMs":
          return ms(r[column]);
        case "tags":
          return r.tags ? JSON.stringify(r.tags) : null;
        case "routing":
          return r.routing ? JSON.stringify(r.routing) : null;
        case "guardrails":
          return r.guardrails?.length ? JSON.stringify(r.guardrails) : null;
        case "body":
          return Boolean(r.body);
        case "model":
        case "userAgent":
        case "route":
          return r[column] === null ? null : String(r[column]).slice(0, 300);
        default:
          return r[column] as ArrayElement;
      }
    })),
  );
}
