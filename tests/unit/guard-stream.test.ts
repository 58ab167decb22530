// A streamed answer under output guardrails, in-process: chat chunks in, chat chunks out. Values
// split over many events, or first seen cut short by the window's end, are replaced whole; a
// block ends the stream within the bound and reads the rest of the node's stream behind it.
import { describe, expect, it } from "vitest";
import { compiledGuardrail } from "../../server/guardrails/compile";
import { guardStream } from "../../server/guardrails/guard-stream";
import type { GuardrailRow } from "../../server/identity/plans/plan-cache";
import type { GuardrailVerdict } from "../../server/kernel/call-outcome";

const row = (definition: Record<string, unknown>): GuardrailRow => ({ id: `gr_${String(definition.name)}`, scope: "ws", name: String(definition.name), definition, secret: null, updatedAt: new Date() });
const ctx = { stage: "output" as const, requestId: "req_t", workspaceId: "ws", model: "m" };
const chunk = (content: string) => JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] });

/** The text in pieces of `size` characters, as chunks; counts how many the reader took. */
function node(text: string, size: number) {
  const state = { taken: 0 };
  async function* events() {
    for (let i = 0; i < text.length; i += size) {
      state.taken++;
      yield chunk(text.slice(i, i + size));
    }
    state.taken++;
    yield JSON.stringify({ object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } });
  }
  return { events: events(), state };
}

async function read(stream: AsyncIterable<string>): Promise<{ text: string; error?: Error }> {
  let text = "";
  try {
    for await (const payload of stream) text += (JSON.parse(payload) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "";
  } catch (err) {
    return { text, error: err as Error };
  }
  return { text };
}

describe("guardStream", () => {
  const pii = compiledGuardrail(row({ name: "pii", type: "pii", stage: "output", action: "redact" }));

  it("replaces values split over events of any size, wherever the checks' windows fall", async () => {
    for (const size of [1, 4, 7]) for (const offset of [0, 50, 100, 110, 115, 120, 127, 128, 200]) {
      const text = `${"x".repeat(offset)} mail jane.doe@example.com.au or call +1 (555) 123-4567, card 4111 1111 1111 1111 ${"y".repeat(300)}`;
      const verdicts: GuardrailVerdict[] = [];
      const out = await read(guardStream(node(text, size).events, [pii], ctx, verdicts));
      expect(out.text, `events of ${size}, offset ${offset}`).toBe(`${"x".repeat(offset)} mail [EMAIL] or call [PHONE], card [CARD] ${"y".repeat(300)}`);
      expect(verdicts).toEqual([expect.objectContaining({ guardrail: "pii", outcome: "redacted" })]);
    }
  });

  it("a block ends the stream within 64 tokens of the match and drains the rest", async () => {
    const deny = compiledGuardrail(row({ name: "deny", type: "deny", stage: "output", action: "block", words: ["launch code"] }));
    const text = `${"a ".repeat(300)}the launch code ${"b ".repeat(2000)}`;
    const n = node(text, 3);
    const out = await read(guardStream(n.events, [deny], ctx, []));
    expect(out.error?.message).toContain("`deny`");
    expect(out.text.length).toBeLessThan(text.indexOf("launch code") + 11 + 64 * 4);
    await new Promise((r) => setTimeout(r, 50));
    expect(n.state.taken).toBe(Math.ceil(text.length / 3) + 1); // read to its end: its usage is billed
  });

  it("passes a clean stream through unchanged, and says so once", async () => {
    const text = "nothing to see here ".repeat(40);
    const verdicts: GuardrailVerdict[] = [];
    expect((await read(guardStream(node(text, 5).events, [pii], ctx, verdicts))).text).toBe(text);
    expect(verdicts).toEqual([expect.objectContaining({ outcome: "passed" })]);
  });
});
