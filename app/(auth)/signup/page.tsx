import { ApiProvider } from "@/app/_trpc/provider";
import { callbackPath } from "../callback-path";
import { SignUpForm } from "./sign-up-form";

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  const next = callbackPath(callbackUrl);
  return (
    <ApiProvider workspaceId={null}>
      <SignUpForm callbackUrl={next} />
    </ApiProvider>
  );
}
