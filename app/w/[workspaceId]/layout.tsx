import { notFound, redirect } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardShell } from "@/app/_components/shell";
import { dashboardSession } from "@/server/transport/next/dashboard-session";

export const dynamic = "force-dynamic";

export default async function WorkspaceLayout({ children, params }: { children: ReactNode; params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  const session = await dashboardSession();
  if (!session) redirect(`/signin?callbackUrl=${encodeURIComponent(`/w/${workspaceId}/usage`)}`);
  const workspace = session.workspaces.find((w) => w.id === workspaceId);
  if (!workspace) notFound();
  return (
    <DashboardShell state={{ workspace, session }}>
      {children}
    </DashboardShell>
  );
}
