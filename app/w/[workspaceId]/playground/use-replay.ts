"use client";
// ?replay=<request id>&at=<its time> (the Logs page's "Open in playground" on a captured chat
// call): reads the call's captured request once and hands its conversation to the playground.
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useEffect, useRef } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { replayDraft, type ReplayDraft } from "./replay";

export function useReplay(apply: (draft: ReplayDraft) => void): { loading: boolean; error: string | null } {
  const trpc = useTRPC();
  const params = useSearchParams();
  const requestId = params.get("replay");
  const at = params.get("at");
  const body = useQuery({
    ...trpc.logs.body.queryOptions({ requestId: requestId ?? "", createdAt: new Date(at ?? 0) }),
    enabled: Boolean(requestId && at),
    staleTime: Infinity,
  });
  const applied = useRef(false);
  const draft = body.data ? replayDraft(body.data.request) : null;
  useEffect(() => {
    if (draft && !applied.current) {
      applied.current = true;
      apply(draft);
    }
  }, [draft, apply]);
  if (!requestId) return { loading: false, error: null };
  if (body.error) return { loading: false, error: `The logged request could not be loaded: ${body.error.message}` };
  if (body.data && !draft) return { loading: false, error: "The logged request is not a whole chat request (cut at the capture cap), so it cannot be replayed." };
  return { loading: body.isLoading, error: null };
}
