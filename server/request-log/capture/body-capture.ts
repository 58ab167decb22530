// The bodies of one captured call, gathered as the call runs: its input once read, its answer as
// it goes out (a JSON body, a stream assembled event by event, a binary answer as a reference),
// then redacted and cut to the workspace's size cap when the call's row is made.
import { streamAssembler, type StreamAssembler } from "./assemble";
import type { CapturePolicy } from "./policy";
import { redact, redactText } from "./redact";

/** A call's bodies as kept: redacted JSON text, each at most the policy's bytes. */
export type CapturedBody = {
  request: string | null;
  response: string | null;
  /** Sizes of the JSON texts before they were cut. */
  requestBytes: number;
  responseBytes: number;
  truncated: boolean;
};

type Answer = { kind: "json"; text: string } | { kind: "value"; value: unknown } | { kind: "stream"; assembler: StreamAssembler };

/** `text` cut to `max` bytes of UTF-8 (never in the middle of a character). */
function cut(text: string, max: number): string {
  return Buffer.from(text).subarray(0, max).toString().replace(/\uFFFD+$/, "");
}

export class BodyCapture {
  private input: unknown = undefined;
  private answer: Answer | null = null;

  constructor(
    private readonly policy: CapturePolicy,
    private readonly route: string,
  ) {}

  /** The operation's input as read (JSON fields, form fields and files). */
  request(raw: unknown): void {
    this.input = raw;
  }

  json(text: string): void {
    this.answer = { kind: "json", text };
  }

  /** A binary answer (audio, an image, a video's bytes): what it was, not its bytes. */
  media(contentType: string, bytes: number | null): void {
    this.answer = { kind: "value", value: { media: contentType, bytes, kept: false } };
  }

  /** A stream's events, passed on unchanged while they are assembled into its answer. */
  tap(events: AsyncIterable<string>): AsyncIterable<string> {
    const assembler = streamAssembler(this.route, this.policy.maxBytes);
    this.answer = { kind: "stream", assembler };
    return (async function* captured() {
      for await (const payload of events) {
        assembler.push(payload);
        yield payload;
      }
    })();
  }

  /** The bodies as kept, or null when there is nothing to keep. */
  finish(): CapturedBody | null {
    const { patterns, maxBytes } = this.policy;
    let truncated = false;
    const keep = (value: unknown): [string | null, number] => {
      if (value === undefined) return [null, 0];
      const text = typeof value === "string" ? value : JSON.stringify(redact(value, patterns));
      const bytes = Buffer.byteLength(text);
      if (bytes <= maxBytes) return [text, bytes];
      truncated = true;
      return [cut(text, maxBytes), bytes];
    };
    const [request, requestBytes] = keep(this.input);
    const [response, responseBytes] = keep(this.answerValue((cutShort) => (truncated ||= cutShort)));
    if (request === null && response === null) return null;
    return { request, response, requestBytes, responseBytes, truncated };
  }

  private answerValue(noteCut: (cut: boolean) => void): unknown {
    const a = this.answer;
    if (!a) return undefined;
    if (a.kind === "value") return a.value;
    if (a.kind === "stream") {
      const { answer, cut: cutShort } = a.assembler.result();
      noteCut(cutShort);
      return answer;
    }
    try {
      return JSON.parse(a.text) as unknown;
    } catch {
      return redactText(a.text, this.policy.patterns);
    }
  }
}
