"use client";
// Invite by link. The link carries a one-time secret the server keeps only as a hash, so it is
// shown here once, right after it was made; it cannot be shown again later.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, ErrorState, SelectField, TextField } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { can } from "@/server/identity/workspaces/permissions";
import { roleChoices, roleInput } from "./role-choices";
type Created = { link: string; email: string | null; emailed: boolean; emailNote: string | null; expiresAt: string };

function CreatedLink({ created }: { created: Created }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(created.link);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }
  return (
    <div className="mt-4 flex flex-col gap-2 rounded-md border border-green-200 bg-green-50 p-4 text-sm">
      <p className="font-medium text-green-900">Invitation created. Copy the link now: it is shown only once.</p>
      <div className="flex flex-col gap-2 sm:flex-row">
        <label htmlFor="invite-link" className="sr-only">
          Invitation link
        </label>
        <input
          id="invite-link"
          readOnly
          value={created.link}
          onFocus={(e) => e.currentTarget.select()}
          className="min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-3 py-2 font-mono text-xs"
        />
        <Button variant="secondary" onClick={() => void copy()}>
          Copy link
        </Button>
      </div>
      <p aria-live="polite" className="text-slate-700">
        {copied === "yes" ? "Link copied." : copied === "failed" ? "Copying failed: select the link and copy it yourself." : null}
      </p>
      <p className="text-slate-700">
        {created.emailed
          ? `An email with the link was sent to ${created.email}.`
          : created.email
            ? `No email was sent. ${created.emailNote ?? ""}`
            : "No email was sent: share the link with the person you invite."}{" "}
        It can be used once and expires {new Date(created.expiresAt).toLocaleString()}.
        {created.email ? ` Only an account with the address ${created.email} can accept it.` : ""}
      </p>
    </div>
  );
}

export function InviteForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { workspace } = useWorkspace();
  const customRoles = useQuery(trpc.roles.list.queryOptions());
  const choices = roleChoices(workspace, customRoles.data ?? []);
  const [role, setRole] = useState("member");
  const [email, setEmail] = useState("");
  const [created, setCreated] = useState<Created | null>(null);
  const invite = useMutation(
    trpc.workspaces.invite.mutationOptions({
      onSuccess: (res, input) => {
        setCreated({
          link: `${window.location.origin}/invite/${res.token}`,
          email: input.email || null,
          emailed: res.emailed,
          emailNote: res.emailNote,
          expiresAt: res.expiresAt,
        });
        setEmail("");
        void refresh(queryClient, trpc.workspaces.invitations.queryKey());
      },
    }),
  );

  if (!can(workspace, "members.manage")) return null;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setCreated(null);
    invite.mutate({ ...roleInput(role), email: email.trim() });
  }

  return (
    <Card title="Invite someone">
      <form onSubmit={submit} className="grid gap-4 sm:grid-cols-[10rem_1fr_auto] sm:items-end">
        <SelectField label="Role" name="role" value={role} onChange={(e) => setRole(e.target.value)}>
          {choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Email (optional)"
          name="email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          hint="Binds the invitation to this address, and emails it when the gateway can send mail."
        />
        <Button type="submit" busy={invite.isPending} className="sm:mb-5">
          Invite
        </Button>
      </form>
      <div className="mt-2">
        <ErrorState error={invite.error} />
      </div>
      {created ? <CreatedLink created={created} /> : null}
    </Card>
  );
}
