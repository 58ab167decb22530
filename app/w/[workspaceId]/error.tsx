"use client";
import { ErrorState } from "@/app/_components/ui";

/** A page that failed to render shows the failure in place, with a retry, instead of a blank screen. */
export default function WorkspaceError({ error, reset }: { error: Error; reset: () => void }) {
  return <ErrorState error={{ message: error.message || "Something went wrong." }} onRetry={reset} />;
}
