import { describe, expect, it } from "vitest";
import { generateKeySecret, hashKey, isWellFormedKey } from "../../server/identity/keys/key-secret";
import { contract } from "../../server/contract";
import { allowedMethods } from "../../server/contract/routes";
import { formatMoney, money } from "../../server/kernel/money";
import { open, seal } from "../../server/infra/secret-box";

describe("money", () => {
  it("adds decimals exactly, where floats would not", () => {
    expect(formatMoney(money("0.1").plus("0.2"))).toBe("0.3");
    expect(formatMoney(money("0.000000000000000001").times(3))).toBe("0.000000000000000003");
  });

  it("prints plain decimal strings, never exponents", () => {
    expect(formatMoney("1e-7")).toBe("0.0000001");
    expect(formatMoney(money("25.000"))).toBe("25");
  });
});

describe("API key secrets", () => {
  it("are sk-gw- plus 40 base62 characters, with a 12-character visible prefix and a sha256 hash", () => {
    const k = generateKeySecret();
    expect(k.secret).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);
    expect(k.prefix).toBe(k.secret.slice(0, 12));
    expect(k.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(k.secret)).toBe(k.hash);
    expect(isWellFormedKey(k.secret)).toBe(true);
    expect(isWellFormedKey(`${k.secret}x`)).toBe(false);
    expect(generateKeySecret().secret).not.toBe(k.secret);
  });
});

describe("sealed upstream keys", () => {
  it("round-trip, never contain the plaintext, and refuse tampering", () => {
    const sealed = seal("sk-upstream-secret-123");
    expect(sealed).not.toContain("sk-upstream-secret-123");
    expect(open(sealed)).toBe("sk-upstream-secret-123");
    expect(seal("same")).not.toBe(seal("same"));
    const parts = sealed.split(":");
    parts[3] = Buffer.from("tampered").toString("base64");
    expect(() => open(parts.join(":"))).toThrow();
  });
});

describe("declared routes", () => {
  it("knows the methods of every declared path, served or not", () => {
    expect(allowedMethods("/v1/files")).toEqual(["GET", "POST"]);
    expect(allowedMethods("/v1/fine_tuning/jobs/ftjob_1/events")).toEqual(["GET"]);
    expect(allowedMethods("/v1/conversations/c1")).toEqual(["GET", "POST", "DELETE"]);
    expect(allowedMethods("/v1/chat/completions")).toEqual(["POST"]);
    expect(allowedMethods("/v1/videos/video-1")).toEqual(["GET", "DELETE"]);
    expect(allowedMethods("/v1/files/a/b")).toBeNull();
    expect(allowedMethods("/v1/models/")).toBeNull();
  });
});

describe("the contract", () => {
  it("names each operation by the tRPC path it is grouped under", () => {
    for (const [group, ops] of Object.entries(contract)) {
      for (const [name, op] of Object.entries(ops)) expect(op.id).toBe(`${group}.${name}`);
    }
  });
});
