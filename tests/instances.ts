// Extra gateway instances on the test run's database, for tests of what each instance keeps in
// memory (key, balance, catalog and node caches) and of an instance dying under load. They are
// started exactly as `npm start` starts its gateway (spawnGateway), from the test build.
import { inject } from "vitest";
import { freePort } from "../server/infra/net/free-port";
import { money, type Money } from "../server/kernel/money";
import { spawnGateway, stopChild, waitForHttp, type Child } from "../scripts/lib/processes";
import { sseFrames } from "./sse-frames";

export type GatewayInstance = {
  url: string;
  child: Child;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process has exited. */
  stop: () => Promise<void>;
  /** SIGKILL at once (no shutdown of any kind); resolves when the process has exited. */
  kill: () => Promise<void>;
  /** The instance's last lines of output, for failure messages. */
  output: () => string;
};

const KEPT_LINES = 2000;

export async function startGatewayInstance(opts: { env?: Record<string, string> } = {}): Promise<GatewayInstance> {
  const port = await freePort();
  const child = spawnGateway(
    {
      port,
      host: "127.0.0.1",
      distDir: process.env.TEST_DIST_DIR ?? ".next-test",
      env: {
        DATABASE_URL: inject("databaseUrl"),
        DATA_DIR: process.env.DATA_DIR!,
        GATEWAY_SECRET: process.env.GATEWAY_SECRET!,
        // One process per instance, so that `kill` ends the whole instance.
        WEB_CONCURRENCY: "1",
        // Video, batch and fine-tuning jobs of other test files must not be picked up by an instance a test kills.
        VIDEO_WORKERS: "0",
        BATCH_WORKERS: "0",
        FINE_TUNE_WORKERS: "0",
        ...opts.env,
      },
    },
    "pipe",
  );
  // Piped output must be read, or the child blocks once the pipe is full. GATEWAY_TEST_LOGS=1 shows it.
  const lines: string[] = [];
  const show = process.env.GATEWAY_TEST_LOGS === "1";
  for (const stream of [child.proc.stdout, child.proc.stderr]) {
    stream?.setEncoding("utf8");
    stream?.on("data", (text: string) => {
      const added = text.split("\n").filter(Boolean);
      if (show) for (const line of added) process.stdout.write(`[instance :${port}] ${line}\n`);
      lines.push(...added);
      if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, child);
  } catch (err) {
    child.proc.kill("SIGKILL");
    throw new Error(`${(err as Error).message}\n${lines.join("\n")}`);
  }
  const kill = async () => {
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill("SIGKILL");
    await child.exited;
  };
  return { url, child, stop: () => stopChild(child), kill, output: () => lines.join("\n") };
}

/** Signs in to an instance's dashboard with email and password (next-auth); returns the Cookie header to send. */
export async function signIn(url: string, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const csrf = await fetch(`${url}/api/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie() },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: url, json: "true" }),
  });
  keep(res);
  await res.body?.cancel();
  if (![...jar.keys()].some((k) => k.endsWith("next-auth.session-token"))) throw new Error(`sign-in at ${url} failed (${res.status})`);
  return cookie();
}

/** Calls a dashboard tRPC mutation on an instance, as the signed-in user of `cookie`, in `workspaceId` when given. */
export async function dashboardMutation<T>(url: string, cookie: string, path: string, input: unknown, workspaceId?: string): Promise<T> {
  const res = await fetch(`${url}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, ...(workspaceId ? { "x-workspace-id": workspaceId } : {}) },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: { data: T }; error?: unknown };
  if (!res.ok || !body.result) throw new Error(`${path} at ${url} answered ${res.status}: ${JSON.stringify(body.error ?? body)}`);
  return body.result.data;
}

export type Propagation<T> = {
  /** The first answer that showed the change, if any did. */
  seen: T | undefined;
  /** When the first attempt that showed the change was sent, counted from `since` (ms). */
  firstSeenMs: number;
  /** When the last attempt that did not show it was sent, counted from `since` (ms; -1: none). */
  lastStaleMs: number;
  attempts: number;
};

/**
 * Watches a change reach an instance: sends `attempt` every `intervalMs`, without waiting for
 * the previous one (so a slow answer does not widen the gaps), until an answer satisfies `ok`
 * or `timeoutMs` passed; then waits for the attempts still under way. Start it when the change
 * is requested. The instance saw the change within N ms of its commit when `lastStaleMs` is
 * less than N ms after the change was confirmed: an attempt is decided no earlier than it is
 * sent, and a change is committed before it is confirmed, so a stale answer to an attempt sent
 * N ms after the confirmation is a stale decision more than N ms after the commit.
 */
export async function watchPropagation<T>(
  since: number,
  attempt: () => Promise<T>,
  ok: (v: T) => boolean,
  { timeoutMs = 5000, intervalMs = 20 } = {},
): Promise<Propagation<T>> {
  const result: Propagation<T> = { seen: undefined, firstSeenMs: Infinity, lastStaleMs: -1, attempts: 0 };
  const running: Promise<void>[] = [];
  let done = false;
  while (!done && performance.now() - since < timeoutMs) {
    const sentMs = Math.round(performance.now() - since);
    result.attempts += 1;
    running.push(
      attempt().then((value) => {
        if (!ok(value)) return void (result.lastStaleMs = Math.max(result.lastStaleMs, sentMs));
        done = true;
        if (sentMs < result.firstSeenMs) (result.firstSeenMs = sentMs), (result.seen = value);
      }),
    );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  await Promise.all(running);
  return result;
}

export type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
};
export type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

/** What a client saw of one chat completion call. */
export type ChatOutcome = {
  instance: string;
  stream: boolean;
  /** Null when no answer arrived at all. */
  status: number | null;
  requestId: string | null;
  /**
   * The answer arrived in full: a parsed completion (not streamed), or `data: [DONE]` after no
   * error frame (streamed). Only then may a client take the call as done.
   */
  complete: boolean;
  /** The usage the answer reported (a stream reports it only when asked to). */
  usage: ChatUsage | null;
  /** An error body: the answer's, or the frame a stream ended with. */
  error: ErrorBody | null;
  /** Why the answer broke off (network), if it did. */
  brokenOff: string | null;
};

/** POST /v1/chat/completions with fetch, reading an SSE answer frame by frame. Never throws. */
export async function chatCall(instance: string, secret: string, body: Record<string, unknown>): Promise<ChatOutcome> {
  const stream = body.stream === true;
  const out: ChatOutcome = { instance, stream, status: null, requestId: null, complete: false, usage: null, error: null, brokenOff: null };
  try {
    const res = await fetch(`${instance}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    out.status = res.status;
    out.requestId = res.headers.get("x-request-id");
    const sse = res.ok && (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    if (!sse) {
      const parsed = JSON.parse(await res.text()) as { usage?: ChatUsage } & Partial<ErrorBody>;
      if (parsed.error) out.error = parsed as ErrorBody;
      else if (res.ok && parsed.usage) (out.usage = parsed.usage), (out.complete = true);
      return out;
    }
    for await (const { data } of sseFrames(res.body!)) {
      if (data === undefined) continue;
      if (data === "[DONE]") {
        out.complete = out.error === null;
        continue;
      }
      const frame = JSON.parse(data) as { usage?: ChatUsage | null } & Partial<ErrorBody>;
      if (frame.error) out.error = frame as ErrorBody;
      if (frame.usage) out.usage = frame.usage;
    }
  } catch (err) {
    out.complete = false;
    out.brokenOff = String((err as { cause?: unknown }).cause ?? err);
  }
  return out;
}

export type TokenPrices = { input_per_1m: string; cache_read_per_1m: string; output_per_1m: string; reasoning_per_1m: string };

/** A chat call's cost as docs/BILLING.md states it, from the usage the node reported. */
export function chatCost(p: TokenPrices, u: ChatUsage): Money {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = u.completion_tokens_details?.reasoning_tokens ?? 0;
  return money(p.input_per_1m)
    .times(u.prompt_tokens - cached)
    .plus(money(p.cache_read_per_1m).times(cached))
    .plus(money(p.output_per_1m).times(u.completion_tokens - reasoning))
    .plus(money(p.reasoning_per_1m).times(reasoning))
    .dividedBy(1_000_000);
}
