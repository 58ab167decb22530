"use client";
// The one place a key's secret is ever shown: right after it was created.
import { SecretOnce } from "@/app/_components/secret-once";

export function NewKeySecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  return (
    <SecretOnce
      id="new-key-title"
      title={`Your new key “${name}”`}
      advice="Copy it now and store it somewhere safe: it is shown only once and cannot be retrieved later."
      secret={secret}
      noun="key"
      testId="new-key-secret"
      onDone={onDone}
    />
  );
}
