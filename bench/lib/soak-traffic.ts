// The soak's live traffic: an open loop at a steady rate over every instance in turn, each call
// one of the kinds below drawn by weight, every answer kept (kind, instance, status, request id,
// time to the last byte). What it sends is chosen so each answer's expected outcome is known:
// a 200 billed once, a refusal (401, 400, 429) billed never.
import { Agent, request } from "undici";

export type CallKind = "chat" | "stream" | "embeddings" | "cache-hit" | "cache-miss" | "limited" | "bad-key" | "bad-input";

export type Answer = {
  kind: CallKind;
  instance: number;
  /** ms since the traffic started, when it was sent */
  at: number;
  status: number;
  requestId: string | null;
  /** send to last byte, ms */
  ms: number;
  /** the body did not end the way its status says (a stream without [DONE], JSON that does not parse) */
  broken: boolean;
  /** x-gateway-cache: hit, miss, bypass, or null */
  cache: string | null;
};

export type Keys = { live: string; cache: string; limited: string };

/** Share of each kind in the traffic (sums to 100). */
export const MIX: Record<CallKind, number> = { chat: 40, stream: 15, embeddings: 10, "cache-hit": 10, "cache-miss": 5, limited: 10, "bad-key": 5, "bad-input": 5 };

/** The cache's repeated prompts: after the first of each, every call of them is a hit. */
const HIT_PROMPTS = 20;

function call(kind: CallKind, keys: Keys, model: string, seq: number): { path: string; key: string; body: string; stream: boolean } {
  const chat = (key: string, content: string, extra: Record<string, unknown> = {}) => ({
    path: "/v1/chat/completions",
    key,
    body: JSON.stringify({ model, messages: [{ role: "user", content }], max_tokens: 16, ...extra }),
    stream: extra.stream === true,
  });
  switch (kind) {
    case "chat":
      return chat(keys.live, `Soak call ${seq}: say something short.`);
    case "stream":
      return chat(keys.live, `Soak stream ${seq}: say something short.`, { stream: true, stream_options: { include_usage: true } });
    case "embeddings":
      return { path: "/v1/embeddings", key: keys.live, body: JSON.stringify({ model: "local-embed-ngram", input: `soak text ${seq % 500}` }), stream: false };
    case "cache-hit":
      return chat(keys.cache, `Cached question ${seq % HIT_PROMPTS}.`, { temperature: 0 });
    case "cache-miss":
      return chat(keys.cache, `Uncached question ${seq}.`, { temperature: 0 });
    case "limited":
      return chat(keys.limited, `Limited call ${seq}.`);
    case "bad-key":
      return chat(`sk-gw-${"0".repeat(40)}`, `Refused ${seq}.`);
    case "bad-input":
      return { path: "/v1/chat/completions", key: keys.live, body: JSON.stringify({ model, messages: "not a list" }), stream: false };
  }
}

/** Draws kinds by MIX deterministically: a shuffled deck of 100, reshuffled by a fixed LCG. */
function deck(): () => CallKind {
  let cards: CallKind[] = [];
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return () => {
    if (!cards.length) {
      cards = (Object.entries(MIX) as [CallKind, number][]).flatMap(([k, n]) => Array<CallKind>(n).fill(k));
      for (let i = cards.length - 1; i > 0; i--) {
        const j = next() % (i + 1);
        [cards[i], cards[j]] = [cards[j]!, cards[i]!];
      }
    }
    return cards.pop()!;
  };
}

export type Traffic = { answers: Answer[]; stop: () => Promise<void>; started: number };

/** Sends `rate` calls a second, spread over `urls` in turn, until stopped; `stop` waits for the calls in flight. */
export function startTraffic(urls: string[], keys: Keys, model: string, rate: number): Traffic {
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const answers: Answer[] = [];
  const inFlight = new Set<Promise<void>>();
  const draw = deck();
  const started = performance.now();
  let sent = 0;
  let stopped = false;

  const send = (seq: number) => {
    const kind = draw();
    const instance = seq % urls.length;
    const c = call(kind, keys, model, seq);
    const t0 = performance.now();
    const p = (async () => {
      let status = 0;
      let requestId: string | null = null;
      let broken = false;
      let cache: string | null = null;
      try {
        const res = await request(`${urls[instance]}${c.path}`, { method: "POST", dispatcher: agent, headers: { authorization: `Bearer ${c.key}`, "content-type": "application/json" }, body: c.body });
        status = res.statusCode;
        const id = res.headers["x-request-id"];
        requestId = typeof id === "string" ? id : null;
        const cached = res.headers["x-gateway-cache"];
        cache = typeof cached === "string" ? cached : null;
        const text = await res.body.text();
        if (c.stream && status === 200) broken = !text.trimEnd().endsWith("data: [DONE]");
        else {
          try {
            JSON.parse(text);
          } catch {
            broken = true;
          }
        }
      } catch {
        broken = true;
      }
      answers.push({ kind, instance, at: t0 - started, status, requestId, ms: performance.now() - t0, broken, cache });
    })();
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  // A tick every 5 ms sends what is due by then, so the rate holds over any interval.
  const timer = setInterval(() => {
    if (stopped) return;
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (sent < due) send(sent++);
  }, 5);

  return {
    answers,
    started,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.all([...inFlight]);
      await agent.close();
    },
  };
}
