"use client";
// Guardrails: the checks run on calls' input and output (docs/GUARDRAILS.md), the workspace's own
// and the operator's gateway-wide ones, each with its type, stage, action, options and where it is
// attached (the workspace, plans, keys), and a box to try it on a text. Every member reads and
// tries them; owners and admins add, edit, attach, detach and remove the workspace's guardrails.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { may, roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Card, EmptyState, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { GuardrailCard } from "./guardrail-card";
import { GuardrailEditor, type Draft } from "./guardrail-editor";
import { formValuesOf, NEW_GUARDRAIL } from "./guardrail-format";

const NEW_DRAFT: Draft = { values: NEW_GUARDRAIL, editing: null, override: false };

export default function GuardrailsPage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  // The same roles guardrails.add, attach, detach and remove allow; the server refuses everyone else anyway.
  const mayManage = may(workspace, "guardrails.manage");
  const guardrails = useQuery(trpc.guardrails.list.queryOptions());
  // Plans and keys name the attachments and are what can be attached to; without them, ids are shown.
  const plans = useQuery(trpc.plans.list.queryOptions());
  const keys = useQuery(trpc.keys.list.queryOptions());
  // Each draft opened anew gets a fresh editor (its key), so its fields start from the draft's.
  const [draft, setDraft] = useState({ n: 0, ...NEW_DRAFT });

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Guardrails"
        description="Checks run on your calls' input and the models' answers, attached to the workspace, a plan or a key: each blocks, redacts or flags what it finds. Gateway-wide guardrails are the operator's; a guardrail of this workspace with the same name takes its place."
      />
      {mayManage ? (
        <GuardrailEditor key={draft.n} draft={draft} onNew={() => setDraft((d) => ({ n: d.n + 1, ...NEW_DRAFT }))} />
      ) : (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-600">
          Your role ({roleName(workspace)}) can see and try the guardrails but not change them; owners and admins can.
        </p>
      )}
      {guardrails.isPending ? (
        <Loading label="Loading guardrails…" />
      ) : guardrails.error ? (
        <ErrorState error={guardrails.error} onRetry={() => void guardrails.refetch()} />
      ) : guardrails.data.length === 0 ? (
        <Card title="Guardrails">
          <EmptyState title="No guardrails yet">
            A guardrail checks what callers send and what models answer (personal data, denied words, prompt injection, moderation, a JSON Schema, or your own service) and blocks, redacts or flags it; see docs/GUARDRAILS.md.
            {mayManage ? " Add one above, then attach it to the workspace, a plan or a key." : null}
          </EmptyState>
        </Card>
      ) : (
        guardrails.data.map((g) => (
          <GuardrailCard
            key={`${g.scope}:${g.name}`}
            guardrail={g}
            plans={plans.data ?? []}
            keys={keys.data ?? []}
            mayManage={mayManage}
            onEdit={() => setDraft((d) => ({ n: d.n + 1, values: formValuesOf(g), editing: g.name, override: g.scope === "global" }))}
          />
        ))
      )}
    </div>
  );
}
