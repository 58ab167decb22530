import { ApiProvider } from "@/app/_trpc/provider";
import { SignUpForm } from "./sign-up-form";

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  const next = callbackUrl?.startsWith("/") && !callbackUrl.startsWith("//") ? callbackUrl : "/dashboard";
  return (
    <ApiProvider workspaceId={null}>
      <SignUpForm callbackUrl={next} />
    </ApiProvider>
  );
}
