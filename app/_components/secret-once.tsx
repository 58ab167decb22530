"use client";
// A secret shown the one time it can be: right after it was made (an API key, a webhook's signing
// secret). Nothing keeps it; "Done" forgets it.
import type { ReactNode } from "react";
import { Button } from "./ui";
import { copyMessage, useCopy } from "./use-copy";

export function SecretOnce({ id, title, advice, secret, noun, testId, onDone }: { id: string; title: ReactNode; advice: string; secret: string; noun: string; testId: string; onDone: () => void }) {
  const { copied, copy } = useCopy();
  return (
    <section aria-labelledby={id} className="rounded-lg border border-amber-300 bg-amber-50 p-4 sm:p-6">
      <h2 id={id} className="text-base font-semibold text-amber-900">
        {title}
      </h2>
      <p className="mt-1 text-sm text-amber-900">{advice}</p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <code data-testid={testId} className="min-w-0 flex-1 break-all rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm select-all">
          {secret}
        </code>
        <Button variant="secondary" onClick={() => void copy(secret)}>
          Copy
        </Button>
        <Button onClick={onDone}>Done</Button>
      </div>
      <p aria-live="polite" className="mt-2 text-xs text-amber-900">
        {copyMessage(copied, noun)}
      </p>
    </section>
  );
}
