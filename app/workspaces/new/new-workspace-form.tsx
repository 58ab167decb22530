"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, ErrorState, TextField } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";

export function NewWorkspaceForm({ firstWorkspace }: { firstWorkspace: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.workspaces.create.mutationOptions({
      onSuccess: ({ id }) => {
        router.push(`/w/${id}/start`);
        router.refresh();
      },
    }),
  );

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (name.trim()) create.mutate({ name });
  }

  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-xl font-semibold">Create a workspace</h1>
        <p className="mt-1 text-sm text-slate-600">
          {firstWorkspace
            ? "You are not in any workspace yet. Create one, or open an invitation link you were sent."
            : "A workspace has its own members, API keys, credits and usage. You will be its owner."}
        </p>
      </div>
      <form onSubmit={submit} className="flex flex-col gap-4">
        <TextField
          label="Workspace name"
          name="name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={100}
          required
          autoFocus
          autoComplete="off"
        />
        <ErrorState error={create.error} />
        <Button type="submit" busy={create.isPending || create.isSuccess} disabled={!name.trim()}>
          Create workspace
        </Button>
      </form>
    </div>
  );
}
