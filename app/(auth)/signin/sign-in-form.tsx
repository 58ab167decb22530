"use client";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, TextField } from "@/app/_components/ui";

export function SignInForm({ callbackUrl, github, initialError }: { callbackUrl: string; github: boolean; initialError: string | null }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", { email: form.get("email"), password: form.get("password"), redirect: false });
    setBusy(false);
    if (!result || result.error) {
      setError(result?.error && result.error !== "CredentialsSignin" ? result.error : "Wrong email or password.");
      return;
    }
    router.push(callbackUrl);
    router.refresh();
  }

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Sign in</h1>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
        {error ? (
          <p role="alert" className="text-sm text-red-600">
            {error}
          </p>
        ) : null}
        <Button type="submit" busy={busy}>
          Sign in
        </Button>
      </form>
      {sso ? (
        // A plain form POST: the browser follows the gateway's redirect to the identity provider.
        <form method="post" action="/api/sso/start" className="flex flex-col gap-4 border-t border-slate-200 pt-4" aria-label="Sign in with SSO">
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <TextField label="Work email" name="email" type="email" autoComplete="email" required hint="We send you to your organisation's sign-in page." />
          <Button type="submit" variant="secondary">
            Continue with SSO
          </Button>
        </form>
      ) : (
        <Button variant="secondary" onClick={() => setSso(true)}>
          Sign in with SSO
        </Button>
      )}
      {github ? (
        <Button variant="secondary" onClick={() => void signIn("github", { callbackUrl })}>
          Sign in with GitHub
        </Button>
      ) : null}
      <p className="text-sm text-slate-600">
        No account?{" "}
        <Link className="font-medium text-indigo-700 underline" href={`/signup?callbackUrl=${encodeURIComponent(callbackUrl)}`}>
          Sign up
        </Link>
      </p>
    </div>
  );
}
