import type { Turn } from "./use-chat";

function TurnUsage({ turn }: { turn: Turn }) {
  if (!turn.usage) return null;
  const cost = turn.cost === null ? "…" : turn.cost === undefined ? "?" : `$${turn.cost}`;
  return (
    <p data-testid="turn-usage" className="mt-2 text-xs text-slate-500">
      {turn.usage.prompt_tokens} input tokens · {turn.usage.completion_tokens} output tokens · {cost}
    </p>
  );
}

export function Conversation({ turns }: { turns: Turn[] }) {
  return (
    <ol aria-label="Conversation" aria-live="polite" className="flex flex-col gap-3">
      {turns.map((turn) => (
        <li
          key={turn.id}
          data-testid={turn.role === "assistant" ? "assistant-message" : "user-message"}
          aria-busy={turn.streaming || undefined}
          className={`rounded-lg px-4 py-3 text-sm ${turn.role === "user" ? "self-end bg-indigo-50 sm:max-w-[80%]" : "bg-slate-50"}`}
        >
          <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">
            {turn.role === "user" ? "You" : (turn.model ?? "Assistant")}
          </p>
          <div className="whitespace-pre-wrap break-words">{turn.content || (turn.streaming ? "…" : "")}</div>
          {turn.error && turn.role === "assistant" ? (
            <p role="alert" data-testid="turn-error" className="mt-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-red-800">
              {turn.error}
            </p>
          ) : null}
          {turn.role === "assistant" ? <TurnUsage turn={turn} /> : null}
        </li>
      ))}
    </ol>
  );
}
