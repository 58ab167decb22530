"use client";
// Copying a text to the clipboard from a button, and what to tell the user about it.
import { useState } from "react";

export type CopyState = "yes" | "failed" | null;

export function useCopy(): { copied: CopyState; copy: (text: string) => Promise<void>; reset: () => void } {
  const [copied, setCopied] = useState<CopyState>(null);
  async function copy(text: string) {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }
  return { copied, copy, reset: () => setCopied(null) };
}

/** What a copy button's live region says. */
export const copyMessage = (copied: CopyState, what: string): string =>
  copied === "yes" ? "Copied to the clipboard." : copied === "failed" ? `Could not copy: select the ${what} and copy it by hand.` : "";
