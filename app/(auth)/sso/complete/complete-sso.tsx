"use client";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";

export function CompleteSso({ ticket, callbackUrl }: { ticket: string; callbackUrl: string }) {
  const router = useRouter();
  const [failed, setFailed] = useState(!ticket);
  const started = useRef(false);

  useEffect(() => {
    // Once: a ticket is good for one sign-in (React may run an effect twice in development).
    if (!ticket || started.current) return;
    started.current = true;
    void signIn("sso", { ticket, redirect: false }).then((result) => {
      if (!result || result.error) {
        setFailed(true);
        return;
      }
      router.replace(callbackUrl);
      router.refresh();
    });
  }, [ticket, callbackUrl, router]);

  if (failed) {
    return (
      <div className="flex flex-col gap-4">
        <h1 className="text-xl font-semibold">Single sign-on failed</h1>
        <p role="alert" className="text-sm text-red-600">
          This sign-in link has expired or was already used.
        </p>
        <Link className="font-medium text-indigo-700 underline" href="/signin">
          Back to sign-in
        </Link>
      </div>
    );
  }
  return <p className="text-sm text-slate-600">Signing you in…</p>;
}
