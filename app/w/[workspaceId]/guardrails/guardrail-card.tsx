"use client";
// One guardrail as the workspace sees it: whose it is, its type, stage, action, what happens when
// its check fails and its timeout, its options in short, where it is attached, and a box to try it
// on a text. Owners and admins edit, attach, detach and remove the workspace's own guardrails; the
// operator's can be attached here, or overridden by a workspace guardrail of the same name.
import type { GuardrailView } from "@/server/guardrails/guardrail-store";
import { Badge, Button, Card } from "@/app/_components/ui";
import { GuardrailAttachments } from "./guardrail-attachments";
import { describeOptions, type KeyRef, type PlanRef } from "./guardrail-format";
import { GuardrailTestBox } from "./guardrail-test-box";
import { RemoveGuardrailButton } from "./remove-guardrail-button";

const STAGE = { input: "the call's input", output: "the model's answer", both: "the call's input and the model's answer" } as const;
const ACTION = { block: "blocks the call", redact: "redacts what it finds", flag: "flags the call in the log" } as const;

type Props = { guardrail: GuardrailView; plans: readonly PlanRef[]; keys: readonly KeyRef[]; mayManage: boolean; onEdit: () => void };

export function GuardrailCard({ guardrail: g, plans, keys, mayManage, onEdit }: Props) {
  const own = g.scope === "workspace";
  const options = describeOptions(g);
  return (
    <Card
      className="min-w-0"
      title={
        <span className="flex flex-wrap items-center gap-2">
          <code className="font-mono">{g.name}</code>
          <Badge tone={own ? "indigo" : "slate"}>{own ? "this workspace" : "gateway-wide"}</Badge>
          <Badge>{g.type}</Badge>
        </span>
      }
      actions={
        mayManage ? (
          <div className="flex flex-wrap items-center gap-2">
            <Button variant="secondary" onClick={onEdit} aria-label={own ? `Edit the guardrail ${g.name}` : `Override the guardrail ${g.name} in this workspace`}>
              {own ? "Edit" : "Override"}
            </Button>
            {own ? <RemoveGuardrailButton name={g.name} /> : null}
          </div>
        ) : null
      }
    >
      <div className="flex flex-col gap-4" data-testid="guardrail" data-guardrail-name={g.name}>
        {g.description ? <p className="text-sm text-slate-600">{g.description}</p> : null}
        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
          <dt className="font-medium text-slate-700">Type</dt>
          <dd>{g.type}</dd>
          <dt className="font-medium text-slate-700">Stage</dt>
          <dd>
            {g.stage} <span className="text-slate-500">({STAGE[g.stage]})</span>
          </dd>
          <dt className="font-medium text-slate-700">Action</dt>
          <dd>
            {g.action} <span className="text-slate-500">({ACTION[g.action]})</span>
          </dd>
          <dt className="font-medium text-slate-700">On error</dt>
          <dd>
            {g.on_error} <span className="text-slate-500">({g.on_error === "allow" ? "a check that fails or times out lets the call through" : "a check that fails or times out blocks the call"})</span>
          </dd>
          <dt className="font-medium text-slate-700">Timeout</dt>
          <dd className="tabular-nums">{g.timeout_ms} ms</dd>
          <dt className="font-medium text-slate-700">Options</dt>
          <dd className="break-words" data-testid="guardrail-options">
            {options.length ? options.join(" · ") : <span className="text-slate-500">none</span>}
          </dd>
        </dl>
        <div>
          <h3 className="mb-2 text-sm font-semibold">Attached to</h3>
          <GuardrailAttachments name={g.name} attachedTo={g.attached_to} plans={plans} keys={keys} mayManage={mayManage} />
        </div>
        <div>
          <h3 className="mb-2 text-sm font-semibold">Try it</h3>
          <GuardrailTestBox name={g.name} />
        </div>
      </div>
    </Card>
  );
}
