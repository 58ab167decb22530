"use client";
// An action that asks for a confirmation in place (no browser dialog): a button, then the
// question with "Yes" and "Cancel", and the action's error if it failed.
import { useState } from "react";
import { Button, ErrorState } from "./ui";

type Props = {
  /** The first button: its text, its accessible name and its look. */
  label: string;
  ariaLabel: string;
  variant?: "secondary" | "ghost";
  /** The confirmation: its accessible name, a short note of what follows, the confirming button's text. */
  confirmAriaLabel: string;
  note?: string;
  confirmLabel: string;
  busy: boolean;
  error: { message: string } | null;
  onConfirm: () => void;
  className?: string;
};

export function ConfirmInRow({ label, ariaLabel, variant = "secondary", confirmAriaLabel, note, confirmLabel, busy, error, onConfirm, className = "" }: Props) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <Button variant={variant} onClick={() => setConfirming(true)} aria-label={ariaLabel}>
        {label}
      </Button>
    );
  }
  return (
    <div className={`flex flex-wrap items-center gap-2 ${className}`.trim()} role="group" aria-label={confirmAriaLabel}>
      {note ? <span className="text-xs text-slate-600">{note}</span> : null}
      <Button variant="danger" busy={busy} onClick={onConfirm}>
        {confirmLabel}
      </Button>
      <Button variant="ghost" onClick={() => setConfirming(false)} disabled={busy}>
        Cancel
      </Button>
      <ErrorState error={error} />
    </div>
  );
}
