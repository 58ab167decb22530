import { redirect } from "next/navigation";
import { githubEnabled } from "@/server/auth/auth-options";
import { dashboardSession } from "@/server/http/dashboard-session";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string; error?: string }> }) {
  const { callbackUrl, error } = await searchParams;
  // Only paths on this site: an open redirect would let a link send people elsewhere after sign-in.
  const next = callbackUrl?.startsWith("/") && !callbackUrl.startsWith("//") ? callbackUrl : "/dashboard";
  if (await dashboardSession()) redirect(next);
  return <SignInForm callbackUrl={next} github={githubEnabled} initialError={error ? "Sign-in failed. Try again." : null} />;
}
