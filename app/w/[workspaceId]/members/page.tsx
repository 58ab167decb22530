import { InviteForm } from "./invite-form";
import { MembersTable } from "./members-table";
import { PendingInvitations } from "./pending-invitations";
import { MembersHeader } from "./members-header";

export const metadata = { title: "Members · Model Gateway" };

export default function MembersPage() {
  return (
    <div className="flex flex-col gap-6">
      <MembersHeader />
      <MembersTable />
      <InviteForm />
      <PendingInvitations />
    </div>
  );
}
