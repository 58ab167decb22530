"use client";
// Trusts an OIDC identity provider: tokens it signs for the audience are accepted as session
// tokens, with the subject and plan read from the claims named here.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, ErrorState, SelectField, TextField } from "@/app/_components/ui";

const EMPTY = { issuer: "", jwksUrl: "", audience: "", subjectClaim: "sub", planClaim: "plan", defaultPlan: "" };

export function IssuerForm({ plans }: { plans: Array<{ id: string; name: string }> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [v, setV] = useState(EMPTY);
  const add = useMutation(
    trpc.plans.addIssuer.mutationOptions({
      onSuccess: async () => {
        setV(EMPTY);
        await refresh(queryClient, trpc.plans.issuers.queryKey());
      },
    }),
  );
  const set = (key: keyof typeof EMPTY) => (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setV((x) => ({ ...x, [key]: e.target.value }));
  function submit(e: FormEvent) {
    e.preventDefault();
    add.mutate({
      issuer: v.issuer.trim(),
      jwks_url: v.jwksUrl.trim(),
      audience: v.audience.trim(),
      subject_claim: v.subjectClaim.trim() || "sub",
      plan_claim: v.planClaim.trim() || "plan",
      default_plan: v.defaultPlan || null,
    });
  }
  return (
    <form onSubmit={submit} aria-label="Trust an identity provider" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      <TextField label="Issuer" required maxLength={500} value={v.issuer} onChange={set("issuer")} placeholder="https://auth.example.com/" hint="The tokens' iss claim, exactly." />
      <TextField label="JWKS URL" type="url" required value={v.jwksUrl} onChange={set("jwksUrl")} placeholder="https://auth.example.com/.well-known/jwks.json" />
      <TextField label="Audience" required maxLength={500} value={v.audience} onChange={set("audience")} hint="The aud the tokens must carry." />
      <TextField label="Subject claim" maxLength={100} value={v.subjectClaim} onChange={set("subjectClaim")} />
      <TextField label="Plan claim" maxLength={100} value={v.planClaim} onChange={set("planClaim")} hint="Holds a plan id or name." />
      <SelectField label="Default plan" value={v.defaultPlan} onChange={set("defaultPlan")} hint="For tokens without the plan claim.">
        <option value="">None: refuse such tokens</option>
        {plans.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </SelectField>
      <div className="sm:col-span-2 lg:col-span-3">
        <Button type="submit" busy={add.isPending}>
          Trust provider
        </Button>
      </div>
      {add.error ? (
        <div className="sm:col-span-2 lg:col-span-3">
          <ErrorState error={add.error} />
        </div>
      ) : null}
    </form>
  );
}
