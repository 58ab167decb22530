"use client";
// The subject filter: typed freely, applied half a second after typing stops, or at once on Enter
// or when the field is left (a query per keystroke would only be thrown away).
import { useEffect, useRef, useState } from "react";
import { TextField } from "@/app/_components/ui";

const SETTLE_MS = 500;

export function SubjectField({ value, onChange }: { value: string; onChange: (subject: string) => void }) {
  const [draft, setDraft] = useState(value);
  const [shown, setShown] = useState(value);
  // The URL changed under the field (another filter reset it, back/forward): show the new value.
  if (value !== shown) {
    setShown(value);
    setDraft(value);
  }
  const apply = useRef(onChange);
  useEffect(() => {
    apply.current = onChange;
  });
  useEffect(() => {
    if (draft.trim() === value) return;
    const timer = setTimeout(() => apply.current(draft.trim()), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [draft, value]);
  const commit = () => {
    if (draft.trim() !== value) apply.current(draft.trim());
  };
  return (
    <TextField
      label="Subject"
      type="search"
      maxLength={256}
      value={draft}
      onChange={(e) => setDraft(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          commit();
        }
      }}
      placeholder="any end user"
      hint="Exact end-user id of session tokens."
    />
  );
}
