"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Badge, Button, ErrorState, Loading } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";

const STATUS_TEXT = {
  expired: "This invitation has expired. Ask the person who invited you for a new link.",
  used: "This invitation has already been used.",
} as const;

export function AcceptInvitation({ token, user }: { token: string; user: { email: string } | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const preview = useQuery(trpc.workspaces.invitationPreview.queryOptions({ token }, { retry: false }));
  const accept = useMutation(
    trpc.workspaces.acceptInvitation.mutationOptions({
      onSuccess: ({ workspaceId }) => {
        router.push(`/w/${workspaceId}/usage`);
        router.refresh();
      },
    }),
  );
  const here = `/invite/${encodeURIComponent(token)}`;

  if (preview.isPending) return <Loading label="Loading the invitation…" />;
  if (preview.isError) {
    return (
      <div className="flex flex-col gap-4">
        <h1 className="text-xl font-semibold">Invitation</h1>
        <ErrorState error={preview.error} />
        <Link className="text-sm font-medium text-indigo-700 underline" href="/dashboard">
          Go to the dashboard
        </Link>
      </div>
    );
  }

  const inv = preview.data;
  const wrongEmail = user && inv.email && inv.email.toLowerCase() !== user.email.toLowerCase();
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Join {inv.workspaceName}</h1>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="text-slate-500">Workspace</dt>
        <dd className="font-medium break-words">{inv.workspaceName}</dd>
        <dt className="text-slate-500">Role</dt>
        <dd>
          <Badge tone="indigo">{inv.role}</Badge>
        </dd>
        {inv.email ? (
          <>
            <dt className="text-slate-500">For</dt>
            <dd className="break-all">{inv.email}</dd>
          </>
        ) : null}
        <dt className="text-slate-500">Expires</dt>
        <dd>{new Date(inv.expiresAt).toLocaleString()}</dd>
      </dl>

      {inv.status !== "valid" ? (
        <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          {STATUS_TEXT[inv.status]}
        </p>
      ) : null}

      {user ? (
        <>
          <p className="text-sm text-slate-600">
            Signed in as <span className="font-medium">{user.email}</span>.
          </p>
          {wrongEmail ? (
            <p role="alert" className="text-sm text-amber-900">
              This invitation is for {inv.email}. Sign out and sign in with that address to accept it.
            </p>
          ) : null}
          <ErrorState error={accept.error} />
          <Button onClick={() => accept.mutate({ token })} busy={accept.isPending || accept.isSuccess}>
            Accept invitation
          </Button>
        </>
      ) : (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-slate-600">Sign in or create an account to accept this invitation.</p>
          <div className="flex flex-wrap gap-2">
            <Link
              href={`/signin?callbackUrl=${encodeURIComponent(here)}`}
              className="inline-flex items-center rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500"
            >
              Sign in to accept
            </Link>
            <Link
              href={`/signup?callbackUrl=${encodeURIComponent(here)}`}
              className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50"
            >
              Create an account
            </Link>
          </div>
        </div>
      )}
    </div>
  );
}
