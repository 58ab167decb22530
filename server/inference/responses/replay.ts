// GET /v1/responses/{id}?stream=true: a stored response's events as server-sent events, the
// same types the streamed create sends, made from what is stored. A response still open (a
// background run, or a stream another request is reading from its node) is followed until it
// ends: the stream then carries the events of each change as it is seen, and closes after the
// terminal event (no [DONE], as on create).
//
// The events are a function of the response alone, numbered the same way on every replay, so
// `starting_after=<sequence_number>` resumes one: response.created (then response.queued for a
// background response), response.in_progress, each output item's events (a message part's
// text in one delta), then response.completed, response.incomplete or response.failed. A
// cancelled response ends without a terminal event (OpenAI's streams have none for it). A
// replay numbers deltas per part, so its numbers match a live stream's only up to its first delta.
import { EventStream } from "../../kernel/event-stream";
import { GatewayError } from "../../kernel/errors";
import { eventPayload, itemEvents, lifecycle, terminal, type ResponseEvent } from "./events";
import { wireItem } from "./items";
import { mcpItemEvents } from "./mcp-events";
import { isMcpItem } from "./mcp-items";
import type { ResponseState } from "./response-object";
import { findResponse, OPEN, settledHereOrAfter } from "./store";

/** How often an open response is looked at again: soon at first, then at most every second. */
const FIRST_LOOK_MS = 100;
const MAX_LOOK_MS = 1000;
/** A follower gives up after this long (a lost run is failed by the sweep well before). */
const FOLLOW_LIMIT_MS = 60 * 60_000;

/** The events of a finished response after its opening ones: its output, then its terminal event. */
function closingEvents(s: ResponseState): ResponseEvent[] {
  const events = s.output.map(wireItem).flatMap((item, index) => (isMcpItem(item) ? mcpItemEvents(index, item) : itemEvents(index, item)));
  const last = terminal(s);
  return last ? [...events, last] : events;
}

/** The response as it was when it opened: no output, no usage, nothing finished. */
function opened(s: ResponseState, status: "queued" | "in_progress"): ResponseState {
  return { ...s, status, output: [], usage: null, error: null, incompleteDetails: null, completedAt: null };
}

export async function replayResponse(workspaceId: string, id: string, startingAfter = -1): Promise<EventStream> {
  // An unknown id is a plain 404, before any event.
  const first = await findResponse(workspaceId, id);
  return new EventStream(follow(workspaceId, first, startingAfter), { named: true, done: false });
}

async function* follow(workspaceId: string, first: ResponseState, startingAfter: number): AsyncGenerator<string> {
  let sequence = -1;
  function* send(events: ResponseEvent[]): Generator<string> {
    for (const e of events) if (++sequence > startingAfter) yield eventPayload(e, sequence);
  }
  let s = first;
  const start = opened(s, s.background ? "queued" : "in_progress");
  yield* send(s.background ? [lifecycle("response.created", start), lifecycle("response.queued", start)] : [lifecycle("response.created", start)]);
  let running = false;
  const deadline = Date.now() + FOLLOW_LIMIT_MS;
  for (let wait = FIRST_LOOK_MS; ; wait = Math.min(MAX_LOOK_MS, wait * 1.5)) {
    if (!running && s.status !== "queued") {
      running = true;
      yield* send([lifecycle("response.in_progress", opened(s, "in_progress"))]);
    }
    if (!OPEN.includes(s.status)) return yield* send(closingEvents(s));
    if (Date.now() > deadline) throw new GatewayError({ status: 504, code: "timeout", type: "server_error", message: "The response did not finish while this stream followed it." });
    await settledHereOrAfter(s.id, wait);
    s = await findResponse(workspaceId, s.id); // deleted meanwhile: a 404 error frame ends the stream
  }
}
