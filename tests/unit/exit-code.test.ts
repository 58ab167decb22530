import { describe, expect, it } from "vitest";
import "../../server/infra/db/embedded";

describe("a process that uses the embedded database keeps its own exit code", () => {
  it("no async-exit-hook handler is left on beforeExit, exit or signals (it would exit 0 or 128+n over ours, or throw at exit)", () => {
    // async-exit-hook's handlers are recognisable by the filters they run first.
    const hooked = (event: string) => process.listeners(event as "beforeExit").filter((l) => l.toString().includes("eventFilters"));
    for (const event of ["beforeExit", "exit", "SIGINT", "SIGTERM", "SIGHUP", "message"]) expect(hooked(event), event).toHaveLength(0);
  });
});
