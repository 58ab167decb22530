"use client";
import { PageHeader } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { NewVideoForm } from "./new-video-form";
import { VideoList } from "./video-list";

export default function VideosPage() {
  const { workspace } = useWorkspace();
  const canCall = may(workspace, "models.call");
  return (
    <>
      <PageHeader title="Videos" description="Render videos from a prompt. A job is billed only once it completes; videos expire after a while, so download those you keep." />
      <div className="flex flex-col gap-6">
        {canCall ? (
          <NewVideoForm canCall={canCall} />
        ) : (
          <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
            Your role (billing) cannot create videos; you can watch and download the workspace&apos;s videos below.
          </p>
        )}
        <VideoList workspaceId={workspace.id} />
      </div>
    </>
  );
}
