"use client";
// A text filter (the subject, a tag): typed freely, applied half a second after typing stops, or
// at once on Enter or when the field is left (a query per keystroke would only be thrown away).
import { useEffect, useRef, useState } from "react";
import { TextField } from "@/app/_components/ui";

const SETTLE_MS = 500;

type Field = { label: string; hint: string; placeholder: string; maxLength: number };

const SUBJECT: Field = { label: "Subject", hint: "Exact end-user id of session tokens.", placeholder: "any end user", maxLength: 256 };

export function SubjectField({ value, onChange, field = SUBJECT }: { value: string; onChange: (value: string) => void; field?: Field }) {
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
      label={field.label}
      type="search"
      maxLength={field.maxLength}
      value={draft}
      onChange={(e) => setDraft(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          commit();
        }
      }}
      placeholder={field.placeholder}
      hint={field.hint}
    />
  );
}
