"use client";
// Getting started: where a new workspace opens. A checklist that ticks itself from the
// workspace's real state (a key, credits, a first call seen in usage), a key made here (its
// secret shown once and filled into the snippets), a snippet with the absolute base URL, and the
// way to Usage once the first call is in.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { can } from "@/server/identity/workspaces/permissions";
import { useTRPC } from "@/app/_trpc/client";
import { roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Card, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { CreateKeyForm } from "../keys/create-key-form";
import { NewKeySecret } from "../keys/new-key-secret";
import { formatUsd } from "../usage/format";
import { SnippetCard } from "./snippet-card";

function Step({ done, children, testId }: { done: boolean; children: React.ReactNode; testId: string }) {
  return (
    <li data-testid={testId} data-done={done} className="flex items-start gap-2">
      <span aria-hidden className={`mt-0.5 inline-flex h-5 w-5 shrink-0 items-center justify-center rounded-full text-xs ${done ? "bg-green-600 text-white" : "border border-slate-300 text-slate-400"}`}>
        {done ? "✓" : ""}
      </span>
      <span className={done ? "text-slate-500 line-through" : ""}>{children}</span>
      <span className="sr-only">{done ? "(done)" : "(to do)"}</span>
    </li>
  );
}

export default function GettingStartedPage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  // Refreshed while the page is open: the checklist ticks itself when a call made elsewhere lands.
  const state = useQuery({ ...trpc.workspaces.gettingStarted.queryOptions(), refetchInterval: 3000 });
  const help = useQuery(trpc.billing.creditsHelp.queryOptions());
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);
  const mayCreate = can(workspace, "keys.create");

  if (state.isPending) return <Loading label="Loading…" />;
  if (state.error) return <ErrorState error={state.error} onRetry={() => void state.refetch()} />;
  const s = state.data;
  const baseUrl = `${(s.publicBaseUrl ?? origin).replace(/\/+$/, "")}/v1`;
  const howToGetCredits = help.data?.text ?? help.data?.defaultText ?? "";

  return (
    <div className="flex flex-col gap-6">
      <PageHeader title="Get started" description={`From a new workspace to a first call through ${workspace.name}, in four steps.`} />
      <Card title="Checklist">
        <ol className="flex flex-col gap-2 text-sm">
          <Step done={s.hasKey} testId="step-key">
            Create an API key
          </Step>
          <Step done={s.hasCredits} testId="step-credits">
            Have credits (balance {formatUsd(s.balance)}){s.hasCredits ? null : <span className="block text-amber-800 no-underline">{howToGetCredits}</span>}
          </Step>
          <Step done={s.hasCalls} testId="step-call">
            Make a first call
          </Step>
          <Step done={s.hasCalls} testId="step-usage">
            See it in <Link className="text-indigo-700 underline" href={`/w/${workspace.id}/usage`}>Usage</Link>
          </Step>
        </ol>
      </Card>
      <Card title="1. Create an API key">
        {created ? <NewKeySecret name={created.name} secret={created.secret} onDone={() => setCreated(null)} /> : null}
        {mayCreate ? (
          <CreateKeyForm onCreated={setCreated} plans={[]} />
        ) : (
          <p className="text-sm text-slate-600">Your role ({roleName(workspace)}) cannot create keys: ask an owner or admin of the workspace for one.</p>
        )}
        {s.hasKey && !created ? <p className="mt-2 text-sm text-slate-600">This workspace has a key. Its secret was shown once, when it was made; create another if you do not have it.</p> : null}
      </Card>
      <SnippetCard baseUrl={baseUrl} apiKey={created?.secret ?? "YOUR_API_KEY"} model={s.model ?? "MODEL_ID"} />
      <Card title="3. Make a first call">
        <p className="text-sm text-slate-600">
          Run the snippet. {s.hasCalls ? "A call arrived: it is in Usage." : "This page ticks the checklist as soon as the call arrives."} You can also try models in the{" "}
          <Link className="text-indigo-700 underline" href={`/w/${workspace.id}/playground`}>
            playground
          </Link>
          .
        </p>
      </Card>
      <Card title="4. See it in Usage">
        <p className="text-sm text-slate-600">
          Every call is in <Link className="text-indigo-700 underline" href={`/w/${workspace.id}/usage`}>Usage</Link> with its tokens and exact cost, a moment after it ends.
        </p>
      </Card>
    </div>
  );
}
