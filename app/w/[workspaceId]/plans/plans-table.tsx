"use client";
// The workspace's plans: what each allows, and how many of its sessions are alive. Owners and
// admins edit and delete them; everyone may open a plan's sessions.
import type { PlanView } from "@/server/identity/plans/plan-view";
import { Button, Table, Td } from "@/app/_components/ui";
import { formatCount } from "../usage/format";
import { DeletePlanButton } from "./delete-plan-button";
import { describeCaps, describeLimits, formatLifetime } from "./plan-format";

export type ListedPlan = PlanView & { alive_sessions: number };

function Models({ models }: { models: string[] }) {
  if (!models.length) return <span className="text-slate-500">all models</span>;
  const shown = models.slice(0, 3).join(", ");
  return <span title={models.join(", ")}>{models.length > 3 ? `${shown} +${models.length - 3} more` : shown}</span>;
}

export function PlansTable({
  plans,
  mayManage,
  onEdit,
  onSessions,
  sessionsOf,
}: {
  plans: ListedPlan[];
  mayManage: boolean;
  onEdit: (id: string) => void;
  onSessions: (id: string) => void;
  sessionsOf: string | null;
}) {
  return (
    <Table caption="Plans of this workspace" head={["Name", "Models", "Rate limits", "Spend caps", "Token lifetime", "Sessions", ...(mayManage ? ["Actions"] : [])]}>
      {plans.map((p) => (
        <tr key={p.id} data-testid="plan-row" data-plan-id={p.id}>
          <Td className="font-medium">
            <span className="block max-w-48 truncate" title={`${p.name} (${p.id})`}>
              {p.name}
            </span>
          </Td>
          <Td className="max-w-56 whitespace-normal break-words">
            <Models models={p.models} />
            {p.tools.length ? (
              <span className="block text-xs text-slate-500" data-testid="plan-tools">
                tools: <Models models={p.tools} />
              </span>
            ) : null}
          </Td>
          <Td className="whitespace-normal">{describeLimits(p)}</Td>
          <Td className="whitespace-normal">{describeCaps(p)}</Td>
          <Td>{formatLifetime(p.max_ttl_seconds)}</Td>
          <Td>
            <Button
              variant="secondary"
              aria-pressed={sessionsOf === p.id}
              onClick={() => onSessions(p.id)}
              aria-label={`Sessions of ${p.name}`}
              title="Show the alive sessions"
              data-testid="alive-sessions"
              className="tabular-nums"
            >
              {formatCount(p.alive_sessions)} alive
            </Button>
          </Td>
          {mayManage ? (
            <Td>
              <div className="flex items-center gap-1">
                <Button variant="ghost" onClick={() => onEdit(p.id)} aria-label={`Edit ${p.name}`}>
                  Edit
                </Button>
                <DeletePlanButton id={p.id} name={p.name} />
              </div>
            </Td>
          ) : null}
        </tr>
      ))}
    </Table>
  );
}
