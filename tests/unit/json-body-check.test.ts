// The check of a parsed JSON body (transport/request-body.ts): a NUL or a lone surrogate in any
// string or key, and nesting past MAX_JSON_DEPTH, are 400s naming where they are; a body whose
// text has no `\u` escape has only its nesting checked, and gets the same answers.
import { describe, expect, it } from "vitest";
import { checkJsonText, MAX_JSON_DEPTH } from "../../server/transport/request-body";
import { GatewayError } from "../../server/kernel/errors";

function problem(text: string, withText: boolean): { param: unknown; message: string } | null {
  try {
    checkJsonText(JSON.parse(text), withText ? text : undefined);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    const e = err as GatewayError;
    expect(e.status).toBe(400);
    return { param: e.param, message: e.message };
  }
}

describe("checkJsonText", () => {
  it("names the string, key or value where the problem is, with the body's text or without it", () => {
    const cases: [string, string | null, RegExp][] = [
      ['{"messages":[{"role":"user","content":"a\\u0000b"}]}', "messages[0].content", /NUL/],
      ['{"input":"\\ud800 alone"}', "input", /lone UTF-16 surrogate/],
      ['{"metadata":{"k\\u0000":"v"}}', "metadata.k\u0000", /NUL/],
      ['{"a":[1,[2,["x\\udc00"]]]}', "a[1][1][0]", /lone/],
      ['"\\u0000"', null, /`body` contains a NUL/],
    ];
    for (const [text, param, message] of cases) {
      for (const withText of [true, false]) {
        const found = problem(text, withText);
        expect(found?.param ?? null).toBe(param);
        expect(found?.message).toMatch(message);
      }
    }
  });

  it("finds nothing in text without a problem, escapes or not", () => {
    for (const text of ['{"a":"plain","b":["x",{"c":"\\n\\"q\\""}]}', '{"a":"\\u00e9\\ud83d\\ude00"}', '{"emoji":"😀","n":1.5,"t":true,"z":null}']) {
      expect(problem(text, true)).toBeNull();
      expect(problem(text, false)).toBeNull();
    }
  });

  it(`refuses nesting past ${MAX_JSON_DEPTH} levels at the value that goes too deep, and takes ${MAX_JSON_DEPTH}`, () => {
    const nested = (depth: number) => `{"metadata":{"deep":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
    const deep = problem(nested(MAX_JSON_DEPTH), true);
    expect(deep?.message).toMatch(new RegExp(`nested more than ${MAX_JSON_DEPTH} levels deep \\(at \`metadata\\.deep(\\[0\\]){${MAX_JSON_DEPTH - 2}}\`\\)`));
    expect(deep?.param).toBe(`metadata.deep${"[0]".repeat(MAX_JSON_DEPTH - 2)}`);
    expect(problem(nested(MAX_JSON_DEPTH - 2), true)).toBeNull();
  });
});
