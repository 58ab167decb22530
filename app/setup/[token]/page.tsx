import { ApiProvider } from "@/app/_trpc/provider";
import { dashboardSession } from "@/server/transport/next/dashboard-session";
import { ClaimSetup } from "./claim-setup";

export const dynamic = "force-dynamic";
// The token in this page's address is a secret: never send it to another site as a referrer.
export const metadata = { title: "Set up · Model Gateway", referrer: "no-referrer" };

/** The one-time link `npm start` prints while the install has no operator. */
export default async function SetupPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const session = await dashboardSession();
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <p className="mb-6 text-center text-lg font-semibold">Model Gateway</p>
        <ApiProvider workspaceId={null}>
          <ClaimSetup token={token} user={session ? { email: session.user.email } : null} />
        </ApiProvider>
      </div>
    </main>
  );
}
