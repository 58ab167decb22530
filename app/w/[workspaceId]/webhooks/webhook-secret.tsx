"use client";
// The one place a webhook's signing secret is shown: right after it was added or rotated.
import { Button } from "@/app/_components/ui";
import { copyMessage, useCopy } from "@/app/_components/use-copy";

export function WebhookSecret({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  const { copied, copy } = useCopy();
  return (
    <section aria-labelledby="webhook-secret-title" className="rounded-lg border border-amber-300 bg-amber-50 p-4 sm:p-6">
      <h2 id="webhook-secret-title" className="text-base font-semibold text-amber-900">
        Signing secret for <span className="break-all">{url}</span>
      </h2>
      <p className="mt-1 text-sm text-amber-900">Verify each delivery&apos;s x-gateway-signature with it. It is shown only once and cannot be retrieved later.</p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <code data-testid="webhook-secret" className="min-w-0 flex-1 break-all rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm select-all">
          {secret}
        </code>
        <Button variant="secondary" onClick={() => void copy(secret)}>
          Copy
        </Button>
        <Button onClick={onDone}>Done</Button>
      </div>
      <p aria-live="polite" className="mt-2 text-xs text-amber-900">
        {copyMessage(copied, "secret")}
      </p>
    </section>
  );
}
