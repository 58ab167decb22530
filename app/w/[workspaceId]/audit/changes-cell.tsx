// An audit event's changes in a line each: "field: from → to" (values as JSON, long ones cut).
const MAX = 80;

const shown = (v: unknown) => {
  const text = v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v);
  return text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text;
};

export function ChangesCell({ changes }: { changes: Record<string, { from?: unknown; to?: unknown }> }) {
  const entries = Object.entries(changes);
  if (!entries.length) return <span className="text-slate-500">—</span>;
  return (
    <ul className="flex flex-col gap-0.5 text-xs">
      {entries.map(([field, c]) => (
        <li key={field}>
          <span className="font-medium">{field}</span>: <span className="text-slate-500">{shown(c.from)}</span> → {shown(c.to)}
        </li>
      ))}
    </ul>
  );
}
