// The dashboard (Next.js) of an instance with two processes is served by the first process only:
// the other passes each request outside /v1 to it over a local socket (dashboard-process.ts).
// Through either process, on connections of their own: pages, sign-in with its cookies, tRPC and
// a request body arrive whole; a client's X-Forwarded-* headers are not believed; and only the
// first process ever loads Next.js. (The browser tests go through both processes too.)
import { request } from "node:http";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../helpers-dashboard";
import { signIn, startGatewayInstance, type GatewayInstance } from "../instances";

let instance: GatewayInstance;

beforeAll(async () => {
  instance = await startGatewayInstance({ env: { WEB_CONCURRENCY: "2", LOG_FORMAT: "json" } });
}, 120_000);

afterAll(async () => {
  await instance?.stop();
});

/** A request on a connection of its own: the instance hands connections to its processes in turn. */
function fresh(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${instance.url}${path}`, { ...init, dispatcher: new Agent({ pipelining: 0 }) } as RequestInit);
}

/** Which processes loaded Next.js, from the instance's log. */
function dashboardLoads(): string[] {
  return instance
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => String((JSON.parse(l) as { msg?: string }).msg ?? ""))
    .filter((msg) => msg.startsWith("Dashboard (Next.js) loaded"));
}

describe("the dashboard in one process of two", () => {
  it("serves pages on every connection, and only the first process loads Next.js", async () => {
    const pages = await Promise.all(Array.from({ length: 8 }, () => fresh("/signin")));
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(await page.text()).toContain("</html>");
    }
    // Calls under /v1 on both processes meanwhile load nothing of it.
    const health = await Promise.all(Array.from({ length: 4 }, () => fresh("/health")));
    for (const res of health) expect(res.status).toBe(200);
    expect(dashboardLoads()).toEqual(["Dashboard (Next.js) loaded in process 0"]);
  });

  it("signs in through either process (cookies set and sent back), and answers tRPC with the session", async () => {
    const user = await newUser({ name: "Two Processes" });
    for (let i = 0; i < 4; i++) {
      // signIn makes its requests with the global fetch: new connections to either process.
      const cookie = await signIn(instance.url, user.email, user.password);
      const res = await fresh("/api/trpc/account.me", { headers: { cookie } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result?: { data: { email: string } } };
      expect(body.result?.data.email).toBe(user.email);
    }
    const anonymous = await fresh("/api/trpc/account.me");
    expect(anonymous.status).toBe(401);
  });

  it("passes a request body of 1 MB whole, and a 404 as it is", async () => {
    const body = "x".repeat(1024 * 1024);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => fresh("/api/trpc/account.me", { method: "POST", headers: { "content-type": "application/json" }, body })),
    );
    // The same refusal from both processes: the body reached tRPC (which refuses a query by POST, or the session first).
    const statuses = new Set(answers.map((a) => a.status));
    expect(statuses.size).toBe(1);
    expect([...statuses][0]).toBeGreaterThanOrEqual(400);
    for (const res of await Promise.all(Array.from({ length: 4 }, () => fresh("/no-such-page-here")))) expect(res.status).toBe(404);
  });

  it("answers before a large body is read (413 on its Content-Length), then serves the next request on the same connection", async () => {
    // SCIM refuses a body over 1 MiB from its Content-Length alone, without reading it.
    const big = JSON.stringify({ userName: "big@example.test", displayName: "x".repeat(1_100_000) });
    for (let i = 0; i < 4; i++) {
      const dispatcher = new Agent({ pipelining: 1, connections: 1 });
      const send = (init: RequestInit) => fetch(`${instance.url}/scim/v2/Users`, { ...init, dispatcher, signal: AbortSignal.timeout(10_000) } as RequestInit);
      const refused = await send({ method: "POST", headers: { "content-type": "application/scim+json", authorization: "Bearer scim_nope" }, body: big });
      expect([401, 413]).toContain(refused.status);
      await refused.arrayBuffer();
      const next = await send({ method: "GET", headers: { authorization: "Bearer scim_nope" } });
      expect(next.status).toBe(401);
      await next.arrayBuffer();
      await dispatcher.close();
    }
  });

  it("answers a request that waits for 100 Continue before its body, on either process", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Promise<number>((resolve, reject) => {
          const body = JSON.stringify({ json: { email: "nobody@example.test" } });
          const req = request(`${instance.url}/api/trpc/account.me`, { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), expect: "100-continue" } });
          req.once("continue", () => req.end(body));
          req.once("response", (res) => {
            res.resume();
            res.once("end", () => resolve(res.statusCode ?? 0));
          });
          req.once("error", reject);
          req.setTimeout(10_000, () => req.destroy(new Error("no answer in 10 s")));
        }),
      ),
    );
    // The same answer from tRPC through both processes (a query sent by POST: 405).
    expect(new Set(statuses)).toEqual(new Set([405]));
  });

  it("does not believe a client's X-Forwarded-Host on either process", async () => {
    for (let i = 0; i < 6; i++) {
      const res = await fresh("/api/auth/providers", { headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" } });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain("evil.example");
      expect(text).toContain(new URL(instance.url).host);
    }
  });
});
