"use client";
// One playground conversation. Each turn goes through chat.createCompletion (stream: true) like
// any client's call, so it is routed, metered and billed the same; the reply is rendered as the
// chunks arrive. The turn's cost is then priced by the server from the usage the stream reported.
import { useCallback, useRef, useState } from "react";
import { useTRPCClient } from "@/app/_trpc/client";

type Usage = {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
};
type Chunk = { choices?: { delta?: { content?: string | null } }[]; usage?: Usage | null };

export type Turn = {
  id: number;
  role: "user" | "assistant";
  content: string;
  model?: string;
  usage?: Usage;
  /** USD, a decimal string from the server; null while it is being priced. */
  cost?: string | null;
  streaming?: boolean;
  error?: string;
};

const isStream = (v: unknown): v is AsyncIterable<string> => typeof v === "object" && v !== null && Symbol.asyncIterator in v;

export function useChat() {
  const client = useTRPCClient();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const nextId = useRef(0);

  const patch = (id: number, change: Partial<Turn>) => setTurns((all) => all.map((t) => (t.id === id ? { ...t, ...change } : t)));

  const send = useCallback(
    async (model: string, system: string, message: string) => {
      const user: Turn = { id: nextId.current++, role: "user", content: message };
      const reply: Turn = { id: nextId.current++, role: "assistant", content: "", model, streaming: true };
      // Failed turns are shown, but not sent back to the model as context.
      const history = turns.filter((t) => !t.error).map((t) => ({ role: t.role, content: t.content }));
      const messages = [...(system.trim() ? [{ role: "system" as const, content: system }] : []), ...history, { role: "user" as const, content: message }];
      setTurns((all) => [...all, user, reply]);
      setBusy(true);
      let content = "";
      let usage: Usage | undefined;
      try {
        const result = await client.chat.createCompletion.mutate({ model, messages, stream: true, stream_options: { include_usage: true } });
        if (!isStream(result)) throw new Error("The server answered without streaming.");
        for await (const data of result) {
          const chunk = JSON.parse(data) as Chunk;
          const delta = chunk.choices?.[0]?.delta?.content;
          if (delta) {
            content += delta;
            patch(reply.id, { content });
          }
          if (chunk.usage) usage = chunk.usage;
        }
        patch(reply.id, { streaming: false, usage, cost: usage ? null : undefined });
        if (usage) {
          const { cost } = await client.playground.turnCost.query({ model, usage });
          patch(reply.id, { cost });
        }
      } catch (err) {
        // The user's message stays visible; both leave the context sent with the next turn.
        patch(reply.id, { streaming: false, error: (err as Error).message, content });
        patch(user.id, { error: "not answered" });
      } finally {
        setBusy(false);
      }
    },
    [client, turns],
  );

  const clear = useCallback(() => setTurns([]), []);
  /** Starts over from earlier turns (a logged call replayed). */
  const load = useCallback((history: { role: "user" | "assistant"; content: string }[]) => setTurns(history.map((t) => ({ id: nextId.current++, ...t }))), []);
  return { turns, busy, send, clear, load };
}
