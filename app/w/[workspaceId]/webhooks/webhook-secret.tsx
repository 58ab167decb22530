"use client";
// The one place a webhook's signing secret is shown: right after it was added or rotated.
import { SecretOnce } from "@/app/_components/secret-once";

export function WebhookSecret({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  return (
    <SecretOnce
      id="webhook-secret-title"
      title={
        <>
          Signing secret for <span className="break-all">{url}</span>
        </>
      }
      advice="Verify each delivery's x-gateway-signature with it. It is shown only once and cannot be retrieved later."
      secret={secret}
      noun="secret"
      testId="webhook-secret"
      onDone={onDone}
    />
  );
}
