// A streamed answer under output guardrails. Its text is checked as it arrives, on a sliding
// window: every CHECK_CHARS characters or CHECK_EVENTS text events (so within 64 tokens of
// anything found), and once more at its end (a schema guardrail only then, on the whole text).
// - block: the client gets the stream's error event (its format's) at once; the node's stream
//   is still read to its end behind it, so what the model produced is billed as the node reports;
// - flag: recorded, the stream goes on;
// - redact: the stream's text events are held back by HOLD characters, so that what a guardrail
//   finds is replaced before any of it goes out (a PII value split over several events included):
//   only text a check saw with HOLD characters after it is released, 128 to 256 characters behind.
//   A service that rewrites the text itself (the http guardrail's `texts`) cannot be placed in a
//   stream: its redaction ends the stream as a block does.
import type { GuardrailVerdict } from "../kernel/call-outcome";
import { deltaText, withDeltaText } from "./call-texts";
import type { CheckContext, CompiledGuardrail } from "./compile";
import { blockedError, checkWithin, reasonOf } from "./run-guardrails";

const CHECK_CHARS = 128;
const CHECK_EVENTS = 32;
/** Text before the last check that is checked again with the new (a match across the two). */
const OVERLAP = 512;
/** How far behind the stream's text its events go out while a guardrail redacts. */
const HOLD = 128;
/** The most text kept for a schema guardrail's check at the end. */
const SCHEMA_MAX_CHARS = 1 << 20;

type Pending = { payload: string; start: number; end: number };
type Redaction = { start: number; end: number; replacement: string };

/** Reads what is left of the node's stream in the background: its last events carry the usage it is billed on. */
function drain(it: AsyncIterator<string>): void {
  void (async () => {
    try {
      for (;;) if ((await it.next()).done) return;
    } catch {
      // the stream's own failure: it ends unbilled, as any failed stream
    }
  })();
}

/**
 * Adds what a check found to the redactions, sorted by start. A finding that overlaps one found
 * before (the same value seen whole now, e.g. an address whose end had not arrived) is merged
 * into it: what a value's first part looked like must not leave its rest unreplaced.
 */
function addRedaction(redactions: Redaction[], r: Redaction): void {
  const overlapping = redactions.filter((x) => x.start < r.end && r.start < x.end);
  if (overlapping.length) {
    const longest = [r, ...overlapping].reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
    const merged = { start: Math.min(r.start, ...overlapping.map((x) => x.start)), end: Math.max(r.end, ...overlapping.map((x) => x.end)), replacement: longest.replacement };
    for (const x of overlapping) redactions.splice(redactions.indexOf(x), 1);
    r = merged;
  }
  redactions.push(r);
  redactions.sort((a, b) => a.start - b.start);
}

/** The payload's text with the redactions that touch [start, end) applied. */
function redactSpan(p: Pending, all: string, redactions: readonly Redaction[]): string {
  let out = "";
  let at = p.start;
  for (const r of redactions) {
    if (r.end <= at || r.start >= p.end) continue;
    if (r.start >= at) out += all.slice(at, r.start) + r.replacement;
    at = Math.min(p.end, r.end);
  }
  return out + all.slice(at, p.end);
}

const inJson = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * An event that adds no text but may repeat it whole (the responses API's `.done` and
 * `response.completed` events): each redacted value replaced wherever it appears.
 */
function redactWhole(payload: string, all: string, redactions: readonly Redaction[]): string {
  let out = payload;
  for (const r of redactions) {
    const found = inJson(all.slice(r.start, r.end));
    if (found) out = out.split(found).join(inJson(r.replacement));
  }
  return out;
}

export function guardStream(events: AsyncIterable<string>, guards: readonly CompiledGuardrail[], ctx: CheckContext, verdicts: GuardrailVerdict[]): AsyncIterable<string> {
  const output = guards.filter((g) => g.output);
  const redacting = output.some((g) => g.action === "redact");
  return {
    async *[Symbol.asyncIterator]() {
      const it = events[Symbol.asyncIterator]();
      let all = "";
      let checkedTo = 0;
      let textEvents = 0;
      const pending: Pending[] = [];
      const redactions: Redaction[] = [];
      const told = new Set<string>();
      const spent = new Map<string, number>();
      const say = (g: CompiledGuardrail, outcome: GuardrailVerdict["outcome"], rule: string | null, extra?: Partial<GuardrailVerdict>) => {
        told.add(g.name);
        verdicts.push({ guardrail: g.name, type: g.type, stage: "output", outcome, rule, ms: Math.round((spent.get(g.name) ?? 0) * 1000) / 1000, ...extra });
      };
      const block = (g: CompiledGuardrail, rule: string | null, extra?: Partial<GuardrailVerdict>) => {
        say(g, extra?.outcome ?? "blocked", rule, extra);
        drain(it);
        return blockedError(g.name, rule, "output", true);
      };

      const check = async (final: boolean) => {
        const from = Math.max(0, checkedTo - OVERLAP);
        const window = all.slice(from);
        checkedTo = all.length;
        textEvents = 0;
        for (const g of output) {
          const schema = g.type === "schema";
          if (schema !== final && schema) continue;
          if (schema && all.length > SCHEMA_MAX_CHARS) throw block(g, "answer_too_long");
          const started = performance.now();
          let result;
          try {
            result = await checkWithin(g, [schema ? all : window], ctx);
          } catch (err) {
            spent.set(g.name, (spent.get(g.name) ?? 0) + performance.now() - started);
            if (g.onError === "block") throw block(g, "check_failed", { outcome: "error", blocked: true, error: reasonOf(err) });
            if (!told.has(g.name)) say(g, "error", null, { blocked: false, error: reasonOf(err) });
            continue;
          }
          spent.set(g.name, (spent.get(g.name) ?? 0) + performance.now() - started);
          const found = result.findings;
          if (!found.length) continue;
          if (g.action === "block") throw block(g, found[0]!.rule);
          if (g.action === "redact") {
            if (result.replaced) throw block(g, found[0]!.rule);
            for (const f of found) if (f.replacement !== undefined) addRedaction(redactions, { start: from + f.start, end: from + f.end, replacement: f.replacement });
          }
          if (!told.has(g.name)) say(g, g.action === "redact" ? "redacted" : "flagged", found[0]!.rule);
        }
      };

      /** The held events whose text ends at or before `upTo`, in order, redacted. */
      const release = function* (upTo: number): Generator<string> {
        while (pending.length && pending[0]!.end <= upTo) {
          const p = pending.shift()!;
          if (p.end === p.start) {
            yield redactions.length ? redactWhole(p.payload, all, redactions) : p.payload;
            continue;
          }
          const text = redactSpan(p, all, redactions);
          yield text === all.slice(p.start, p.end) ? p.payload : withDeltaText(p.payload, text);
        }
      };

      // Given up by its reader (a shutdown's cut): the node's stream is given up too. After a
      // block it is being drained, and after its end there is nothing to give up.
      let settled = false;
      try {
        for (;;) {
          const step = await it.next();
          if (step.done) break;
          const text = deltaText(step.value);
          const start = all.length;
          if (text) {
            all += text;
            textEvents++;
          }
          if (all.length - checkedTo >= CHECK_CHARS || textEvents >= CHECK_EVENTS) await check(false);
          if (!redacting) {
            yield step.value;
            continue;
          }
          pending.push({ payload: step.value, start, end: all.length });
          // Only text checked with HOLD characters after it goes out: a value cut by the window's end is whole by then.
          yield* release(checkedTo - HOLD);
        }
        settled = true;
        await check(true);
        yield* release(Infinity);
        for (const g of output) if (!told.has(g.name)) say(g, "passed", null);
      } catch (err) {
        settled = true; // a block drains the node's stream; the node's own failure ended it
        throw err;
      } finally {
        if (!settled) void it.return?.()?.catch(() => undefined);
      }
    },
  };
}
