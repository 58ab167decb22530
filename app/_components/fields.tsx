// Form fields: a visible label tied to its control, an optional hint or error tied to it with
// aria-describedby, and the same look for every kind of control.
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { useId } from "react";

type FieldProps = { label: string; hint?: ReactNode; error?: string | null };

const CONTROL = "rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500";

function FieldFrame({ label, hint, error, className, children }: FieldProps & { className?: string; children: (id: string, describedBy: string | undefined) => ReactNode }) {
  const id = useId();
  const describedBy = hint || error ? `${id}-hint` : undefined;
  return (
    <div className={["flex flex-col gap-1", className].filter(Boolean).join(" ")}>
      <label htmlFor={id} className="text-sm font-medium text-slate-700">
        {label}
      </label>
      {children(id, describedBy)}
      {error || hint ? (
        <p id={describedBy} className={error ? "text-xs text-red-600" : "text-xs text-slate-500"}>
          {error || hint}
        </p>
      ) : null}
    </div>
  );
}

export function TextField({ label, hint, error, className, ...rest }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <FieldFrame label={label} hint={hint} error={error} className={className}>
      {(id, describedBy) => <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} className={CONTROL} {...rest} />}
    </FieldFrame>
  );
}

export function SelectField({ label, hint, error, className, children, ...rest }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <FieldFrame label={label} hint={hint} error={error} className={className}>
      {(id, describedBy) => (
        <select id={id} aria-describedby={describedBy} className={CONTROL} {...rest}>
          {children}
        </select>
      )}
    </FieldFrame>
  );
}

export function TextareaField({ label, hint, error, className, ...rest }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <FieldFrame label={label} hint={hint} error={error} className={className}>
      {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} className={`min-h-20 ${CONTROL}`} {...rest} />}
    </FieldFrame>
  );
}

/** A checkbox with its label and a line saying what it does. */
export function CheckField({ label, note, checked, onChange, disabled }: { label: string; note: ReactNode; checked: boolean; onChange: (checked: boolean) => void; disabled?: boolean }) {
  return (
    <label className="flex items-start gap-2 text-sm">
      <input type="checkbox" className="mt-0.5" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
      <span>
        <span className="font-medium">{label}</span>
        <span className="block text-slate-600">{note}</span>
      </span>
    </label>
  );
}

