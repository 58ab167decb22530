import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientIp } from "../../server/transport/node/client-ip";

const req = (forwarded: string | undefined, peer = "10.0.0.1") =>
  ({ headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded }, socket: { remoteAddress: peer } }) as unknown as IncomingMessage;

describe("the client address sign-in throttling counts by", () => {
  it("is the peer's address unless a proxy is trusted: a client cannot choose it", () => {
    expect(clientIp(req("1.2.3.4"), false)).toBe("10.0.0.1");
  });

  it("behind a trusted proxy, is the entry the proxy appended (the last), not one the client sent first", () => {
    expect(clientIp(req("6.6.6.6, 203.0.113.9"), true)).toBe("203.0.113.9");
    expect(clientIp(req("203.0.113.9"), true)).toBe("203.0.113.9");
    expect(clientIp(req(undefined), true)).toBe("10.0.0.1");
  });
});
