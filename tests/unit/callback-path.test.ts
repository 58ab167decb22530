import { describe, expect, it } from "vitest";
import { callbackPath } from "../../app/(auth)/callback-path";

describe("the path to return to after sign-in is on this site", () => {
  it("keeps paths with their query (an encoded tab stays an encoded, same-site path)", () => {
    expect(callbackPath("/%09/evil.example")).toBe("/%09/evil.example");
    expect(callbackPath("/w/ws_1/keys")).toBe("/w/ws_1/keys");
    expect(callbackPath("/invite/gwinv_abc?x=1")).toBe("/invite/gwinv_abc?x=1");
  });

  it.each(["//evil.example/x", "/\\evil.example", "/\t/evil.example", "https://evil.example/", "javascript:alert(1)", "", undefined, "w/relative"])(
    "refuses %s",
    (raw) => {
      expect(callbackPath(raw)).toBe("/dashboard");
    },
  );
});
