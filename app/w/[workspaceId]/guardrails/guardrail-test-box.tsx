"use client";
// A guardrail tried on a text, as a call's input (its output, for one that checks only outputs):
// the verdict, the rule that decided it, how long the check took and the text as it would go on
// (redacted). Every member may; nothing is logged or billed, but a moderation guardrail asks its
// model and an http one its service.
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { Badge, Button, ErrorState, TextareaField } from "@/app/_components/ui";
import { VERDICT_TONE } from "./guardrail-format";

export function GuardrailTestBox({ name }: { name: string }) {
  const trpc = useTRPC();
  const [text, setText] = useState("");
  const test = useMutation(trpc.guardrails.test.mutationOptions());

  function submit(e: FormEvent) {
    e.preventDefault();
    test.mutate({ name, text });
  }

  const r = test.data;
  return (
    <form onSubmit={submit} aria-label={`Test ${name}`} className="flex flex-col gap-3">
      <TextareaField label="Text to test" value={text} onChange={(e) => setText(e.target.value)} rows={3} maxLength={100_000} placeholder="A prompt or an answer to check" />
      <div>
        <Button type="submit" variant="secondary" busy={test.isPending} aria-label={`Test ${name} on the text`}>
          Test
        </Button>
      </div>
      <ErrorState error={test.error} />
      <div aria-live="polite">
        {r ? (
          <div data-testid="guardrail-test-result" className="flex flex-col gap-2 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm">
            <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <span data-testid="guardrail-verdict">
                <Badge tone={VERDICT_TONE[r.verdict]}>{r.verdict}</Badge>
              </span>
              <span>
                rule: {r.rule ? <code className="font-mono text-xs">{r.rule}</code> : <span className="text-slate-500">none</span>}
              </span>
              <span className="tabular-nums text-slate-600">{r.ms} ms</span>
              <span className="text-slate-600">as the call&apos;s {r.stage}</span>
            </p>
            <pre data-testid="guardrail-test-text" className="whitespace-pre-wrap break-words rounded border border-slate-200 bg-white px-2 py-1 font-mono text-xs">
              {r.text}
            </pre>
            {r.message ? <p className="text-red-800">{r.message}</p> : null}
            {r.error ? <p className="text-red-800">The check failed: {r.error}</p> : null}
          </div>
        ) : null}
      </div>
    </form>
  );
}
