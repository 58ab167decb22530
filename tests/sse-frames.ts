// Reads a server-sent event stream in a test as it arrives: each frame (the text between blank
// lines) as soon as it is complete, with its `data:` payload. A broken connection throws.

export type SseFrame = { raw: string; data: string | undefined };

export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      yield { raw, data: raw.split("\n").find((l) => l.startsWith("data: "))?.slice(6) };
    }
  }
}
