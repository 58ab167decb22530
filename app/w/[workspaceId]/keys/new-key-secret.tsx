"use client";
// The one place a key's secret is ever shown: right after it was created. Nothing keeps it;
// "Done" forgets it.
import { Button } from "@/app/_components/ui";
import { copyMessage, useCopy } from "@/app/_components/use-copy";

export function NewKeySecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const { copied, copy } = useCopy();

  return (
    <section aria-labelledby="new-key-title" className="rounded-lg border border-amber-300 bg-amber-50 p-4 sm:p-6">
      <h2 id="new-key-title" className="text-base font-semibold text-amber-900">
        Your new key “{name}”
      </h2>
      <p className="mt-1 text-sm text-amber-900">Copy it now and store it somewhere safe: it is shown only once and cannot be retrieved later.</p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <code data-testid="new-key-secret" className="min-w-0 flex-1 break-all rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm select-all">
          {secret}
        </code>
        <Button variant="secondary" onClick={() => void copy(secret)}>
          Copy
        </Button>
        <Button onClick={onDone}>Done</Button>
      </div>
      <p aria-live="polite" className="mt-2 text-xs text-amber-900">
        {copyMessage(copied, "key")}
      </p>
    </section>
  );
}
