"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, TextField } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";

export function SignUpForm({ callbackUrl }: { callbackUrl: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const signUp = useMutation(trpc.account.signUp.mutationOptions());

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    setError(null);
    try {
      await signUp.mutateAsync({ name: String(form.get("name") ?? ""), email, password });
    } catch (err) {
      setError(err instanceof Error ? err.message : "Sign-up failed.");
      return;
    }
    const result = await signIn("credentials", { email, password, redirect: false });
    if (!result || result.error) {
      setError("Your account was created, but signing in failed. Try signing in.");
      return;
    }
    router.push(callbackUrl);
    router.refresh();
  }

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Create your account</h1>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <TextField label="Name" name="name" autoComplete="name" required />
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" minLength={10} required hint="At least 10 characters." />
        {error ? (
          <p role="alert" className="text-sm text-red-600">
            {error}
          </p>
        ) : null}
        <Button type="submit" busy={signUp.isPending}>
          Sign up
        </Button>
      </form>
      <p className="text-sm text-slate-600">
        Have an account?{" "}
        <Link className="font-medium text-indigo-700 underline" href={`/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`}>
          Sign in
        </Link>
      </p>
    </div>
  );
}
