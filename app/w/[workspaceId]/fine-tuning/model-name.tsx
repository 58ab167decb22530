"use client";
// A fine-tuned model's or checkpoint's name as callers use it, with a Copy button and a link that
// opens it in the playground.
import Link from "next/link";
import { Button } from "@/app/_components/ui";
import { copyMessage, useCopy } from "@/app/_components/use-copy";
import { playgroundHref } from "./playground-href";

export function ModelName({ workspaceId, model, what = "model" }: { workspaceId: string; model: string; what?: string }) {
  const { copied, copy } = useCopy();
  return (
    <div className="flex flex-col gap-1">
      <code data-testid="model-name" className="break-all font-mono text-xs text-slate-800">
        {model}
      </code>
      <div className="flex flex-wrap items-center gap-2">
        <Button variant="secondary" className="px-2 py-1 text-xs" onClick={() => void copy(model)} aria-label={`Copy ${model}`}>
          Copy
        </Button>
        <Link
          href={playgroundHref(workspaceId, model)}
          aria-label={`Open ${model} in the playground`}
          className="text-xs font-medium text-indigo-700 underline hover:text-indigo-900"
        >
          Open in playground
        </Link>
        <span aria-live="polite" className="text-xs text-slate-600">
          {copyMessage(copied, what)}
        </span>
      </div>
    </div>
  );
}
