"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Button, ErrorState } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";

const linkClass = "inline-flex items-center rounded-md px-3 py-2 text-sm font-medium shadow-sm";

export function ClaimSetup({ token, user }: { token: string; user: { email: string } | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const claim = useMutation(trpc.account.claimSetup.mutationOptions({ onSuccess: () => router.refresh() }));
  const here = `/setup/${encodeURIComponent(token)}`;

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Become this gateway&apos;s operator</h1>
      <p className="text-sm text-slate-600">
        Operators register nodes, grant credits to workspaces and set what users are told about getting credits. This link works once.
      </p>
      {claim.isSuccess ? (
        <>
          <p role="status" className="rounded-md border border-green-200 bg-green-50 px-4 py-3 text-sm text-green-900">
            You are now an operator of this gateway.
          </p>
          <Link href="/dashboard" className={`${linkClass} justify-center bg-indigo-600 text-white hover:bg-indigo-500`}>
            Go to the dashboard
          </Link>
        </>
      ) : user ? (
        <>
          <p className="text-sm text-slate-600">
            Signed in as <span className="font-medium">{user.email}</span>.
          </p>
          <ErrorState error={claim.error} />
          <Button onClick={() => claim.mutate({ token })} busy={claim.isPending}>
            Become the operator
          </Button>
        </>
      ) : (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-slate-600">Sign in, or create your account, first.</p>
          <div className="flex flex-wrap gap-2">
            <Link href={`/signin?callbackUrl=${encodeURIComponent(here)}`} className={`${linkClass} bg-indigo-600 text-white hover:bg-indigo-500`}>
              Sign in
            </Link>
            <Link href={`/signup?callbackUrl=${encodeURIComponent(here)}`} className={`${linkClass} border border-slate-300 bg-white text-slate-800 hover:bg-slate-50`}>
              Create an account
            </Link>
          </div>
        </div>
      )}
    </div>
  );
}
