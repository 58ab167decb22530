import { describe, expect, it } from "vitest";
import { ConnectionsPerAddress } from "../../scripts/lib/connections-per-address";

describe("open connections per client address, over an instance's processes", () => {
  it("an address is full at the cap, whichever processes hold its connections; a close frees one slot", () => {
    const counts = new ConnectionsPerAddress<string>(3);
    counts.add("10.0.0.1", "first");
    counts.add("10.0.0.1", "second");
    expect(counts.full("10.0.0.1")).toBe(false);
    counts.add("10.0.0.1", "second");
    expect(counts.full("10.0.0.1")).toBe(true);
    expect(counts.full("10.0.0.2")).toBe(false);
    counts.remove("10.0.0.1", "first");
    expect(counts.full("10.0.0.1")).toBe(false);
  });

  it("a process that exits gives back every connection it held, and only those", () => {
    const counts = new ConnectionsPerAddress<string>(2);
    counts.add("10.0.0.1", "first");
    counts.add("10.0.0.1", "second");
    counts.add("10.0.0.2", "second");
    counts.add("10.0.0.2", "second");
    counts.removeAll("second");
    expect(counts.full("10.0.0.2")).toBe(false);
    counts.add("10.0.0.1", "third");
    expect(counts.full("10.0.0.1")).toBe(true);
  });

  it("a close reported for a connection the process did not hold (it exited meanwhile) changes nothing", () => {
    const counts = new ConnectionsPerAddress<string>(1);
    counts.add("10.0.0.1", "first");
    counts.remove("10.0.0.1", "second");
    expect(counts.full("10.0.0.1")).toBe(true);
  });
});
