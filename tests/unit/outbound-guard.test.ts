// The outbound guard: which addresses a tenant-chosen URL may reach, what is refused when the URL
// is configured, and what a fetch refuses (a redirect, a name resolving to a private address, a
// name rebinding between check and connect, an answer too large or too slow).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { addressRefusal, parseAllowList, refusedKind } from "../../server/infra/net/address-policy";
import { createOutboundGuard, type OutboundGuard, type Resolve } from "../../server/infra/net/outbound-guard";
import { assertOutboundUrlAllowed, type OutboundPolicy } from "../../server/infra/net/outbound-policy";

const policy = (allow = "", more: Partial<OutboundPolicy> = {}): OutboundPolicy => ({
  allow: parseAllowList(allow),
  allowHttp: false,
  timeoutMs: 5000,
  maxBytes: 1024,
  ...more,
});

describe("address policy", () => {
  it.each([
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "shared"],
    ["100.127.255.254", "shared"],
    ["127.0.0.1", "loopback"],
    ["127.0.0.2", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["192.168.255.255", "private"],
    ["192.0.2.10", "reserved"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456:789a::1", "private"],
    ["fe80::1", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["ff05::1:3", "multicast"],
    // IPv4-mapped IPv6 is its IPv4 address, in either notation.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:192.168.1.1", "private"],
    ["::ffff:0.0.0.0", "unspecified"],
    // NAT64 carries its IPv4 address in the last 32 bits.
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["64:ff9b::127.0.0.1", "loopback"],
    // Local-use NAT64 reaches the operator's own IPv4 network; the 6to4 relay anycast is a tunnel.
    ["64:ff9b:1::a00:1", "private"],
    ["192.88.99.1", "reserved"],
    // IPv4-compatible and 6to4 tunnel to an IPv4 address of their own.
    ["::127.0.0.1", "reserved"],
    ["2002:7f00:1::1", "reserved"],
    ["not-an-address", "reserved"],
  ])("refuses %s (%s)", (address, kind) => {
    expect(refusedKind(address)).toBe(kind);
    expect(addressRefusal(address, parseAllowList(""))).toBe(kind);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.215.14", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "169.253.255.255", "11.0.0.1", "223.255.255.254",
    "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808"])("allows the public address %s", (address) => {
    expect(refusedKind(address)).toBeNull();
  });

  it("OUTBOUND_ALLOW: host names (any case, final dot), single addresses and CIDRs of both families", () => {
    const allow = parseAllowList(" Idp.Internal. , 10.0.0.0/8,127.0.0.1, fd00::/8, [::1] ,");
    expect([...allow.hosts]).toEqual(["idp.internal"]);
    for (const address of ["10.2.3.4", "::ffff:10.2.3.4", "127.0.0.1", "::ffff:127.0.0.1", "fd00::5", "::1"]) expect(addressRefusal(address, allow), address).toBeNull();
    expect(addressRefusal("127.0.0.2", allow)).toBe("loopback");
    expect(addressRefusal("fc00::1", allow)).toBe("private");
    expect(addressRefusal("169.254.169.254", allow)).toBe("link-local");
  });

  it.each(["10.0.0.0/33", "10.0.0.0/8/1", "fd00::/129", "10.0.0.0/x", "not a host", "http://idp.internal", "idp..internal"])("a malformed OUTBOUND_ALLOW entry (%s) is an error naming it", (entry) => {
    expect(() => parseAllowList(`idp.internal,${entry}`)).toThrow(entry);
  });
});

describe("configuration-time check (no DNS)", () => {
  const refusal = (url: string, p = policy()) => {
    try {
      assertOutboundUrlAllowed(url, "jwks_url", p);
      return null;
    } catch (err) {
      return err;
    }
  };

  it("public https URLs pass", () => {
    for (const url of ["https://idp.example.com/.well-known/jwks.json", "https://8.8.8.8/jwks", "https://[2606:4700:4700::1111]:8443/jwks"]) expect(refusal(url), url).toBeNull();
  });

  it.each([
    ["http://idp.example.com/jwks", "plain http is not allowed"],
    ["ftp://idp.example.com/jwks", "only https URLs are allowed, not ftp"],
    ["https://127.0.0.2:9/jwks", "it points at a loopback address (127.0.0.2)"],
    ["https://2130706433/jwks", "it points at a loopback address (127.0.0.1)"],
    ["https://0x7f.1/jwks", "it points at a loopback address (127.0.0.1)"],
    ["https://[::1]/jwks", "it points at a loopback address (::1)"],
    ["https://[::ffff:127.0.0.1]/jwks", "it points at a loopback address (::ffff:7f00:1)"],
    ["https://169.254.169.254/latest/meta-data/", "it points at a link-local address (where cloud metadata endpoints live) (169.254.169.254)"],
    ["https://[fe80::1]/", "it points at a link-local address"],
    ["https://10.0.0.1/jwks", "it points at a private-network address (10.0.0.1)"],
    ["https://[fd00::1]/jwks", "it points at a private-network address (fd00::1)"],
    ["https://0.0.0.0/jwks", "it points at an unspecified address (0.0.0.0)"],
    ["https://224.0.0.1/jwks", "it points at a multicast address (224.0.0.1)"],
    ["https://localhost:8443/jwks", "it points at localhost"],
    ["https://LOCALHOST./jwks", "it points at localhost"],
    ["https://idp.localhost/jwks", "it points at localhost"],
    ["not a url", "is not a valid URL"],
  ])("refuses %s with a 400 that says why", (url, why) => {
    expect(refusal(url)).toMatchObject({ status: 400, code: "url_not_allowed", param: "jwks_url", message: expect.stringContaining(why) });
  });

  it("OUTBOUND_ALLOW lets the listed hosts and addresses through, over plain http too", () => {
    const p = policy("127.0.0.1, 10.0.0.0/8, idp.internal, localhost");
    for (const url of ["http://127.0.0.1:9/jwks", "https://127.0.0.1/jwks", "http://10.1.2.3/jwks", "http://IDP.internal./jwks", "https://localhost:8443/jwks"]) expect(refusal(url, p), url).toBeNull();
    expect(refusal("http://127.0.0.2:9/jwks", p)).toMatchObject({ message: expect.stringContaining("plain http is not allowed") });
    expect(refusal("https://127.0.0.2:9/jwks", p)).toMatchObject({ message: expect.stringContaining("loopback") });
    expect(refusal("http://other.example/jwks", p)).toMatchObject({ message: expect.stringContaining("plain http is not allowed") });
  });

  it("OUTBOUND_ALLOW_HTTP allows plain http to public addresses only", () => {
    const p = policy("", { allowHttp: true });
    expect(refusal("http://idp.example.com/jwks", p)).toBeNull();
    expect(refusal("http://10.0.0.1/jwks", p)).toMatchObject({ message: expect.stringContaining("private-network") });
    expect(refusal("http://localhost/jwks", p)).toMatchObject({ message: expect.stringContaining("localhost") });
  });
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler, host = "127.0.0.1", port = 0): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
const portOf = (s: Server) => (s.address() as AddressInfo).port;
const close = (s: Server) =>
  new Promise<void>((resolve) => {
    s.closeAllConnections();
    s.close(() => resolve());
  });

describe("guarded fetch", () => {
  // Two servers on one port, on 127.0.0.1 (allowed by the test's policy) and 127.0.0.2 (never allowed).
  let allowed: Server;
  let forbidden: Server;
  let port: number;
  const seenByForbidden: string[] = [];
  const routes: Record<string, Handler> = {
    "/jwks": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"keys":[]}'),
    "/to-metadata": (_req, res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
    "/to-other-loopback": (_req, res) => res.writeHead(307, { location: `http://127.0.0.2:${port}/jwks` }).end(),
    "/big": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("x".repeat(2048)),
    "/big-chunked": (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < 8; i++) res.write("y".repeat(256));
      res.end();
    },
    "/hang": () => undefined,
    "/stall": (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"keys":[');
    },
  };
  const guards: OutboundGuard[] = [];
  const guard = (p: OutboundPolicy, resolve?: Resolve) => {
    const g = createOutboundGuard(p, resolve);
    guards.push(g);
    return g;
  };

  beforeAll(async () => {
    allowed = await listen((req, res) => (routes[req.url!] ?? ((_q, r) => r.writeHead(404).end()))(req, res));
    port = portOf(allowed);
    forbidden = await listen((req, res) => {
      seenByForbidden.push(req.url!);
      res.writeHead(200).end("forbidden server");
    }, "127.0.0.2", port);
  });
  afterEach(async () => {
    await Promise.all(guards.splice(0).map((g) => g.close()));
  });
  afterAll(async () => {
    await Promise.all([close(allowed), close(forbidden)]);
  });

  it("fetches an allowed address and hands back the answer", async () => {
    const res = await guard(policy("127.0.0.1")).fetch(`http://127.0.0.1:${port}/jwks`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ keys: [] });
  });

  it("refuses a literal address the policy does not allow, before connecting", async () => {
    const g = guard(policy("127.0.0.1"));
    await expect(g.fetch(`https://127.0.0.2:${port}/jwks`)).rejects.toMatchObject({ status: 502, code: "outbound_refused", reason: expect.stringContaining("loopback") });
    await expect(g.fetch(`http://127.0.0.2:${port}/jwks`)).rejects.toMatchObject({ code: "outbound_refused", reason: expect.stringContaining("plain http") });
    expect(seenByForbidden).toEqual([]);
  });

  it("does not follow redirects: one to the metadata address or to another loopback address is refused", async () => {
    const g = guard(policy("127.0.0.1"));
    for (const path of ["/to-metadata", "/to-other-loopback"]) {
      await expect(g.fetch(`http://127.0.0.1:${port}${path}`)).rejects.toMatchObject({ status: 502, code: "outbound_refused", reason: expect.stringContaining("redirect") });
    }
    expect(seenByForbidden).toEqual([]);
  });

  it("refuses a name that resolves to a private, loopback or mapped loopback address, or to a mix", async () => {
    for (const found of [[{ address: "10.0.0.1", family: 4 }], [{ address: "127.0.0.2", family: 4 }], [{ address: "::ffff:127.0.0.2", family: 6 }], [{ address: "8.8.8.8", family: 4 }, { address: "169.254.169.254", family: 4 }]]) {
      const g = guard(policy("", { allowHttp: true }), async () => found);
      await expect(g.fetch(`http://idp.example.test:${port}/jwks`), JSON.stringify(found)).rejects.toMatchObject({ status: 502, code: "outbound_refused", reason: expect.stringMatching(/^its host resolves to /) });
    }
    expect(seenByForbidden).toEqual([]);
  });

  it("resolves a name once and connects to the address it checked (no rebinding between check and connect)", async () => {
    const lookups: string[] = [];
    // The first answer is the checked one; any later lookup would rebind the name to 127.0.0.2.
    const rebinding: Resolve = async (host) => {
      lookups.push(host);
      return [{ address: lookups.length === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
    };
    const g = guard(policy("127.0.0.1", { allowHttp: true }), rebinding);
    const res = await g.fetch(`http://rebind.example.test:${port}/jwks`);
    expect(await res.json()).toEqual({ keys: [] });
    expect(lookups).toEqual(["rebind.example.test"]);
    expect(seenByForbidden).toEqual([]);
  });

  it("a host named in OUTBOUND_ALLOW may resolve to a private address", async () => {
    const g = guard(policy("idp.internal"), async () => [{ address: "127.0.0.1", family: 4 }]);
    const res = await g.fetch(`http://IDP.Internal:${port}/jwks`);
    expect(res.status).toBe(200);
  });

  it("refuses an answer larger than the cap, declared or streamed", async () => {
    const g = guard(policy("127.0.0.1", { maxBytes: 1024 }));
    for (const path of ["/big", "/big-chunked"]) {
      await expect(g.fetch(`http://127.0.0.1:${port}${path}`)).rejects.toMatchObject({ status: 502, code: "outbound_too_large" });
    }
    const roomy = guard(policy("127.0.0.1", { maxBytes: 4096 }));
    expect((await (await roomy.fetch(`http://127.0.0.1:${port}/big-chunked`)).text()).length).toBe(2048);
  });

  it("cuts a server that never answers, or stops in the middle of its body, at the time limit", async () => {
    const g = guard(policy("127.0.0.1", { timeoutMs: 300 }));
    for (const path of ["/hang", "/stall"]) {
      const since = performance.now();
      await expect(g.fetch(`http://127.0.0.1:${port}${path}`), path).rejects.toMatchObject({ status: 504, code: "outbound_timeout" });
      expect(performance.now() - since).toBeLessThan(2000);
    }
  });

  it("a whole-answer request (`request`, the MCP tool call's) makes the same checks and reads the same answers", async () => {
    const g = guard(policy("127.0.0.1", { maxBytes: 1024, timeoutMs: 300 }));
    const ok = await g.request(`http://127.0.0.1:${port}/jwks`, { headers: { accept: "application/json" } });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString())).toEqual({ keys: [] });
    await expect(g.request(`http://127.0.0.2:${port}/jwks`)).rejects.toMatchObject({ status: 502, code: "outbound_refused" });
    for (const path of ["/to-metadata", "/to-other-loopback"]) {
      await expect(g.request(`http://127.0.0.1:${port}${path}`)).rejects.toMatchObject({ status: 502, code: "outbound_refused", reason: expect.stringContaining("redirect") });
    }
    for (const path of ["/big", "/big-chunked"]) {
      await expect(g.request(`http://127.0.0.1:${port}${path}`), path).rejects.toMatchObject({ status: 502, code: "outbound_too_large" });
    }
    for (const path of ["/hang", "/stall"]) {
      const since = performance.now();
      await expect(g.request(`http://127.0.0.1:${port}${path}`), path).rejects.toMatchObject({ status: 504, code: "outbound_timeout" });
      expect(performance.now() - since).toBeLessThan(2000);
    }
    // The caller's own abort is the caller's (not a timeout), whether it comes before the answer or while it is read.
    const early = new AbortController();
    early.abort(new Error("the caller left"));
    await expect(g.request(`http://127.0.0.1:${port}/jwks`, { signal: early.signal })).rejects.toThrow("the caller left");
    const late = new AbortController();
    setTimeout(() => late.abort(new Error("the caller left later")), 100);
    await expect(guard(policy("127.0.0.1", { timeoutMs: 5000 })).request(`http://127.0.0.1:${port}/stall`, { signal: late.signal })).rejects.toThrow("the caller left later");
    const roomy = guard(policy("127.0.0.1", { maxBytes: 4096 }));
    expect((await roomy.request(`http://127.0.0.1:${port}/big-chunked`)).body.length).toBe(2048);
    expect(seenByForbidden).toEqual([]);
  });

  it("refuses what is not a valid http(s) URL", async () => {
    const g = guard(policy("127.0.0.1"));
    await expect(g.fetch("not a url")).rejects.toMatchObject({ code: "outbound_refused", reason: "it is not a valid URL" });
    await expect(g.fetch(`file:///etc/passwd`)).rejects.toMatchObject({ code: "outbound_refused", reason: expect.stringContaining("only https") });
  });

  it("a caller's own abort stays the caller's", async () => {
    const g = guard(policy("127.0.0.1"));
    const reason = new Error("caller gave up");
    await expect(g.fetch(`http://127.0.0.1:${port}/hang`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});
