import { PageHeader } from "@/app/_components/ui";
import { CacheSettings } from "./cache-settings";
import { CaptureSettings } from "./capture-settings";
import { LeaveWorkspace } from "./leave-workspace";
import { ScimSettings } from "./scim-settings";
import { SsoSettings } from "./sso-settings";
import { WorkspaceDetails } from "./workspace-details";

export const metadata = { title: "Settings · Model Gateway" };

export default function SettingsPage() {
  return (
    <div className="flex flex-col gap-6">
      <PageHeader title="Settings" description="The workspace's name, its response cache, what its request log keeps, single sign-on and provisioning, and your membership." />
      <WorkspaceDetails />
      <CacheSettings />
      <CaptureSettings />
      <SsoSettings />
      <ScimSettings />
      <LeaveWorkspace />
    </div>
  );
}
