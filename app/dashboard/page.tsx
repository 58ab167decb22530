import { redirect } from "next/navigation";
import { dashboardSession } from "@/server/transport/next/dashboard-session";

export const dynamic = "force-dynamic";

/** Where sign-in lands: the first workspace, or creating one. */
export default async function DashboardHome() {
  const session = await dashboardSession();
  if (!session) redirect("/signin");
  const first = session.workspaces[0];
  redirect(first ? `/w/${first.id}/usage` : "/workspaces/new");
}
