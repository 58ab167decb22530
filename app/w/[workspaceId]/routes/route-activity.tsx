"use client";
// What one route did lately: the calls each target answered in the last hour (counts and shares),
// and its newest calls that fell back to another target or failed, attempt by attempt.
import type { RouteFailure, RouteShare } from "@/server/routing/routes/route-stats";
import { Badge, EmptyState, Table, Td } from "@/app/_components/ui";
import { formatCount } from "../usage/format";
import { describeAttempt, formatPercent, sharesOf } from "./route-format";

export function RouteShares({ route, shares }: { route: string; shares: RouteShare[] }) {
  const { total, rows } = sharesOf(route, shares);
  if (!total) return <EmptyState title="No calls in the last hour" />;
  return (
    <Table caption={`Calls of ${route} in the last hour, per target`} head={["Answered by", "Calls", "Share"]}>
      {rows.map((r) => (
        <tr key={r.target ?? "none"} data-testid="route-share">
          <Td>{r.target === null ? <span className="text-slate-500">no target (every attempt failed)</span> : <code className="font-mono text-xs">{r.target}</code>}</Td>
          <Td className="tabular-nums">{formatCount(r.calls)}</Td>
          <Td>
            <span className="flex items-center gap-2 tabular-nums">
              <span className="h-2 w-24 overflow-hidden rounded-full bg-slate-100" aria-hidden>
                <span className="block h-full bg-indigo-500" style={{ width: `${r.percent}%` }} />
              </span>
              {formatPercent(r.percent)}
            </span>
          </Td>
        </tr>
      ))}
    </Table>
  );
}

export function RouteFailures({ route, failures }: { route: string; failures: RouteFailure[] }) {
  const mine = failures.filter((f) => f.route === route);
  if (!mine.length) return <EmptyState title="No fallbacks or failures lately" />;
  return (
    <Table caption={`Recent fallbacks and failures of ${route}`} head={["Time", "Status", "Attempts"]}>
      {mine.map((f) => (
        <tr key={f.id} data-testid="route-failure">
          <Td>
            {new Date(f.created_at * 1000).toLocaleString()}
            <span className="block max-w-48 truncate font-mono text-xs text-slate-500" title={f.id}>
              {f.id}
            </span>
          </Td>
          <Td>
            <Badge tone={f.status >= 400 ? "red" : "amber"}>{f.status >= 400 ? f.status : `${f.status} after a fallback`}</Badge>
          </Td>
          <Td className="whitespace-normal">
            <ol className="flex flex-col gap-0.5">
              {f.attempts.map((a, i) => (
                <li key={i} className="font-mono text-xs">
                  <span className={a.status >= 400 ? "text-red-700" : "text-green-700"}>{describeAttempt(a)}</span> <span className="text-slate-500">{a.ms} ms</span>
                </li>
              ))}
            </ol>
          </Td>
        </tr>
      ))}
    </Table>
  );
}
