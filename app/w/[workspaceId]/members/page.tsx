import { InviteForm } from "./invite-form";
import { MembersTable } from "./members-table";
import { PendingInvitations } from "./pending-invitations";
import { MembersHeader } from "./members-header";
import { RolesEditor } from "./roles-editor";

export const metadata = { title: "Members · Model Gateway" };

export default function MembersPage() {
  return (
    <div className="flex flex-col gap-6">
      <MembersHeader />
      <MembersTable />
      <InviteForm />
      <PendingInvitations />
      <RolesEditor />
    </div>
  );
}
