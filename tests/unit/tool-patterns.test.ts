// Tool patterns of keys and plans: what a pattern matches (`*` any run of characters, the rest
// exactly), that an empty list allows every tool, that a caller needs both its key's and its plan's
// patterns to allow a tool, and which patterns the schemas refuse, with messages that say why.
import { describe, expect, it } from "vitest";
import { mayUseTool, patternWithin, toolAllowed, ZPlanToolPatterns, ZToolPatterns } from "../../server/identity/keys/tool-patterns";

const messages = (input: unknown): string[] => {
  const r = ZToolPatterns.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe("toolAllowed", () => {
  it("null, undefined and an empty list allow every tool", () => {
    for (const patterns of [null, undefined, []]) expect(toolAllowed(patterns, "github__get_issue")).toBe(true);
  });

  it("a pattern without a star matches only that name, case-sensitively", () => {
    const p = ["search__web"];
    expect(toolAllowed(p, "search__web")).toBe(true);
    expect(toolAllowed(p, "search__web2")).toBe(false);
    expect(toolAllowed(p, "xsearch__web")).toBe(false);
    expect(toolAllowed(["github__getIssue"], "github__getissue")).toBe(false);
  });

  it("a star matches any run of characters, none included, wherever it stands", () => {
    expect(toolAllowed(["github__*"], "github__get_issue")).toBe(true);
    expect(toolAllowed(["github__*"], "github__")).toBe(true);
    expect(toolAllowed(["github__*"], "github-enterprise__get_issue")).toBe(false);
    expect(toolAllowed(["*__read_file"], "fs__read_file")).toBe(true);
    expect(toolAllowed(["*__read_file"], "fs__read_files")).toBe(false);
    expect(toolAllowed(["gh__*issue*"], "gh__get_issue_comments")).toBe(true);
    expect(toolAllowed(["gh__*issue*"], "gh__get_pull")).toBe(false);
    expect(toolAllowed(["a__*b*b"], "a__b")).toBe(false);
    expect(toolAllowed(["a__*b*b"], "a__bb")).toBe(true);
    expect(toolAllowed(["*"], "anything__at_all")).toBe(true);
  });

  it("a list allows a tool any of its patterns matches", () => {
    const p = ["github__*", "search__web", "*__read_file"];
    expect(["github__x", "search__web", "fs__read_file"].map((n) => toolAllowed(p, n))).toEqual([true, true, true]);
    expect(["search__news", "fs__write_file", "slack__post"].map((n) => toolAllowed(p, n))).toEqual([false, false, false]);
  });

  it("a pattern of many stars against a long name that it does not match answers at once", () => {
    const pattern = `a__${"*a".repeat(90)}b`;
    const started = performance.now();
    expect(toolAllowed([pattern], `a__${"a".repeat(5000)}`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe("mayUseTool", () => {
  it("needs the key's patterns and the plan's to allow the tool, each absent or empty allowing every tool", () => {
    expect(mayUseTool(null, null, "github__x")).toBe(true);
    expect(mayUseTool(["github__*"], undefined, "github__x")).toBe(true);
    expect(mayUseTool(undefined, ["github__x"], "github__x")).toBe(true);
    expect(mayUseTool(["github__*"], ["search__*"], "github__x")).toBe(false);
    expect(mayUseTool(["github__*"], ["search__*"], "search__web")).toBe(false);
    expect(mayUseTool(["github__*", "search__*"], ["*__web", "github__*"], "search__web")).toBe(true);
    expect(mayUseTool([], ["github__*"], "slack__post")).toBe(false);
  });
});

describe("patternWithin", () => {
  it("holds when a listed pattern covers every name the other pattern matches", () => {
    expect(patternWithin(["github__*"], "github__get*")).toBe(true);
    expect(patternWithin(["github__*"], "github__get_issue")).toBe(true);
    expect(patternWithin(["*"], "*")).toBe(true);
    expect(patternWithin(["github__get*"], "github__*")).toBe(false);
    expect(patternWithin(["github__get_issue"], "github__*")).toBe(false);
    expect(patternWithin(["*__read_file"], "fs__*")).toBe(false);
  });
});

describe("ZToolPatterns", () => {
  it("keeps valid patterns once each, trimmed, in the order given", () => {
    expect(ZToolPatterns.parse(["github__*", " search__web ", "github__*", "*__read_file", "*", "fs__admin.tools/list", "gh__getIssue"])).toEqual([
      "github__*",
      "search__web",
      "*__read_file",
      "*",
      "fs__admin.tools/list",
      "gh__getIssue",
    ]);
  });

  it("refuses an empty list, saying to leave it out for every tool", () => {
    expect(messages([])).toEqual(["name at least one tool pattern, or leave it out for every tool"]);
  });

  it("refuses a pattern without a server, with characters no tool name has, an upper-case server, or too long", () => {
    expect(messages(["github"])[0]).toContain('tool pattern "github" names no server');
    expect(messages(["github__get issue"])[0]).toContain("may hold only letters, digits, _ - . / and *");
    expect(messages(["github__get?"])[0]).toContain("may hold only");
    expect(messages(["GitHub__*"])[0]).toContain("the server part (before __) is lower-case");
    expect(messages([""]).length).toBeGreaterThan(0);
    expect(messages([`a__${"x".repeat(198)}`]).length).toBeGreaterThan(0);
    expect(messages([`a__${"x".repeat(197)}`])).toEqual([]);
  });

  it("refuses more than 500 patterns", () => {
    expect(messages(Array.from({ length: 501 }, (_, i) => `s${i}__*`)).length).toBeGreaterThan(0);
    expect(messages(Array.from({ length: 500 }, (_, i) => `s${i}__*`))).toEqual([]);
  });

  it("a plan's list may be empty (every tool) and otherwise follows the same rules", () => {
    expect(ZPlanToolPatterns.parse([])).toEqual([]);
    expect(ZPlanToolPatterns.parse(["a__*", "a__*"])).toEqual(["a__*"]);
    expect(ZPlanToolPatterns.safeParse(["nope"]).success).toBe(false);
  });
});
