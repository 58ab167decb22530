// What clients rely on beyond the bodies: CORS for browser apps (preflight, errors, streams),
// `x-should-retry: false` where a retry cannot help (the SDKs obey it), `openai-processing-ms`,
// and forwarded headers believed only behind a trusted proxy.
import { describe, expect, it } from "vitest";
import { client, newWorkspace, raw } from "../helpers";

const PAGE = "https://app.example.test";

describe("CORS", () => {
  it("a preflight is answered without a key, for the methods of the path and the headers asked for", async () => {
    const res = await raw("/v1/chat/completions", {
      method: "OPTIONS",
      headers: { origin: PAGE, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, x-stainless-os" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(res.headers.get("access-control-allow-headers")).toBe("authorization, content-type, x-stainless-os");
    expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  it("answers carry the CORS headers: success, errors and streams, with the useful headers exposed", async () => {
    const { secret } = await newWorkspace();
    const ok = await raw("/v1/models", { key: secret, headers: { origin: PAGE } });
    const refused = await raw("/v1/models", { key: "sk-gw-not-a-real-key-0000000000000000000000", headers: { origin: PAGE } });
    const stream = await raw("/v1/chat/completions", {
      method: "POST",
      key: secret,
      headers: { origin: PAGE, "content-type": "application/json" },
      body: JSON.stringify({ model: "local-chat-sim", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect([ok.status, refused.status, stream.status]).toEqual([200, 401, 200]);
    for (const res of [ok, refused, stream]) {
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toContain("x-request-id");
    }
    expect(await stream.text()).toContain("data: [DONE]");
  });
});

describe("x-should-retry and openai-processing-ms", () => {
  it("answers a retry cannot fix say so; the SDK then sends one request, not three", async () => {
    const { secret } = await newWorkspace();
    for (const [path, status] of [["/v1/fine_tuning/jobs/ftjob-unknown", 404], ["/v1/no-such-route", 404], ["/v1/videos/video-unknown", 404]] as const) {
      const res = await raw(path, { key: secret });
      expect(res.status, path).toBe(status);
      expect(res.headers.get("x-should-retry"), path).toBe("false");
    }
    const bad = await raw("/v1/chat/completions", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: "{" });
    expect(bad.headers.get("x-should-retry")).toBe("false");
    let requests = 0;
    const counting = client(secret).withOptions({
      maxRetries: 2,
      fetch: (url: RequestInfo | URL, init?: RequestInit) => (requests++, fetch(url, init)),
    });
    const started = Date.now();
    await expect(counting.fineTuning.jobs.retrieve("ftjob-unknown")).rejects.toMatchObject({ status: 404 });
    expect(requests).toBe(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("a success has openai-processing-ms and no x-should-retry", async () => {
    const { secret } = await newWorkspace();
    const res = await raw("/v1/models", { key: secret });
    expect(res.headers.get("openai-processing-ms")).toMatch(/^\d+$/);
    expect(res.headers.get("x-should-retry")).toBeNull();
  });
});

describe("forwarded headers", () => {
  it("X-Forwarded-Host and -Proto do not move signed image links unless TRUST_PROXY is set", async () => {
    const { secret } = await newWorkspace();
    const res = await raw("/v1/images/generations", {
      method: "POST",
      key: secret,
      headers: { "content-type": "application/json", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      body: JSON.stringify({ model: "local-image", prompt: "a fox", response_format: "url", size: "256x256" }),
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { url: string }[] };
    const link = new URL(data[0]!.url);
    expect(link.host).not.toBe("evil.example");
    expect(link.origin).toBe(new URL(res.url).origin);
  });
});
