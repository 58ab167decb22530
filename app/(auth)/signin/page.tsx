import { redirect } from "next/navigation";
import { githubEnabled } from "@/server/transport/next/auth-options";
import { dashboardSession } from "@/server/transport/next/dashboard-session";
import { callbackPath } from "../callback-path";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

const ERRORS: Record<string, string> = {
  OAuthAccountNotLinked: "An account with this email already exists. Sign in with its password.",
  SsoRequired: "Your organisation signs in with single sign-on. Use “Sign in with SSO”.",
  SsoNotConfigured: "Single sign-on is not set up for this e-mail domain. Sign in with your password, or ask your workspace's owner.",
  SsoFailed: "Single sign-on could not be started. Try again, or ask your workspace's owner.",
  SsoDeactivated: "Your membership has been deactivated. Ask your workspace's administrators.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string; error?: string }> }) {
  const { callbackUrl, error } = await searchParams;
  const next = callbackPath(callbackUrl);
  if (await dashboardSession()) redirect(next);
  return <SignInForm callbackUrl={next} github={githubEnabled} initialError={error ? (Object.hasOwn(ERRORS, error) ? ERRORS[error]! : "Sign-in failed. Try again.") : null} />;
}
