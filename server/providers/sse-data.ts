// A node's server-sent events, split as its bytes arrive: each event's data (its `data:` lines,
// joined), whatever the line endings. Synchronous, so a relay reading many small events pays no
// promise per event.

/** The data of one SSE event, or "" when it has none. */
export function payloadOf(event: string): string {
  if (event.startsWith("data: ") && !event.includes("\n")) return event.slice(6);
  return event
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(line[5] === " " ? 6 : 5))
    .join("\n");
}

export class SseData {
  private readonly decoder = new TextDecoder();
  private buffer = "";

  /** The data of each event that `chunk` completes (events without data left out). */
  push(chunk: Uint8Array): string[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    if (this.buffer.includes("\r")) this.buffer = this.buffer.replace(/\r\n?/g, "\n");
    const out: string[] = [];
    let end: number;
    while ((end = this.buffer.indexOf("\n\n")) >= 0) {
      const data = payloadOf(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
      if (data) out.push(data);
    }
    return out;
  }

  /** The data of a last event the body ended without closing ("" when none). */
  rest(): string {
    const rest = this.buffer.trim();
    this.buffer = "";
    return rest ? payloadOf(rest) : "";
  }
}
