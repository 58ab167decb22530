"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button, Card, ErrorState } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";

export function LeaveWorkspace() {
  const trpc = useTRPC();
  const router = useRouter();
  const { workspace } = useWorkspace();
  const [confirming, setConfirming] = useState(false);
  const leave = useMutation(
    trpc.workspaces.leave.mutationOptions({
      onSuccess: () => {
        router.push("/dashboard");
        router.refresh();
      },
    }),
  );
  return (
    <Card title="Leave workspace">
      <div className="flex flex-col gap-3 text-sm">
        <p className="text-slate-600">
          You lose access to {workspace.name} at once; to come back you need a new invitation. The last owner cannot leave: make
          another member an owner first.
        </p>
        <ErrorState error={leave.error} />
        {confirming ? (
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium">Leave {workspace.name}?</span>
            <Button variant="danger" busy={leave.isPending || leave.isSuccess} onClick={() => leave.mutate()}>
              Yes, leave
            </Button>
            <Button variant="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </div>
        ) : (
          <div>
            <Button variant="danger" onClick={() => setConfirming(true)}>
              Leave workspace
            </Button>
          </div>
        )}
      </div>
    </Card>
  );
}
