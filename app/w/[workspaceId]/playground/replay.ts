// A captured chat request as a playground conversation: its system prompt, the turns before the
// last user message (text only), and that message to send again. Images and other parts that are
// not text are named in brackets; the request log keeps media as references, not bytes.
export type ReplayDraft = { model: string | null; system: string; history: { role: "user" | "assistant"; content: string }[]; message: string };

type Part = { type?: string; text?: string };
type Message = { role?: string; content?: string | Part[] | null };

function textOf(content: Message["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (p.type === "text" || typeof p.text === "string" ? (p.text ?? "") : `[${p.type ?? "part"}]`)).join("\n");
}

/** The draft of a captured request's JSON text; null when it is not a whole chat request (cut at the cap, or another shape). */
export function replayDraft(requestJson: string | null): ReplayDraft | null {
  let request: { model?: unknown; messages?: unknown };
  try {
    request = JSON.parse(requestJson ?? "") as typeof request;
  } catch {
    return null;
  }
  if (!Array.isArray(request.messages)) return null;
  const messages = request.messages as Message[];
  const system = messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => textOf(m.content)).join("\n\n");
  const turns = messages.filter((m) => m.role === "user" || m.role === "assistant").map((m) => ({ role: m.role as "user" | "assistant", content: textOf(m.content) }));
  const lastUser = turns.map((t) => t.role).lastIndexOf("user");
  if (lastUser < 0) return null;
  return { model: typeof request.model === "string" ? request.model : null, system, history: turns.slice(0, lastUser), message: turns[lastUser]!.content };
}

/** The playground's address replaying a logged call (its bodies are read there, by whoever may see them). */
export const replayHref = (workspaceId: string, requestId: string, createdAt: string, model: string) =>
  `/w/${workspaceId}/playground?${new URLSearchParams({ model, replay: requestId, at: createdAt }).toString()}`;
