import Link from "next/link";
import { redirect } from "next/navigation";
import { ApiProvider } from "@/app/_trpc/provider";
import { dashboardSession } from "@/server/transport/next/dashboard-session";
import { NewWorkspaceForm } from "./new-workspace-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "New workspace · Model Gateway" };

export default async function NewWorkspacePage() {
  const session = await dashboardSession();
  if (!session) redirect(`/signin?callbackUrl=${encodeURIComponent("/workspaces/new")}`);
  const back = session.workspaces[0];
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <p className="mb-6 text-center text-lg font-semibold">Model Gateway</p>
        <ApiProvider workspaceId={null}>
          <NewWorkspaceForm firstWorkspace={session.workspaces.length === 0} />
        </ApiProvider>
        {back ? (
          <p className="mt-6 text-sm text-slate-600">
            <Link className="font-medium text-indigo-700 underline" href={`/w/${back.id}/usage`}>
              Back to {back.name}
            </Link>
          </p>
        ) : null}
      </div>
    </main>
  );
}
