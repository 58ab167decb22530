import { describe, expect, it } from "vitest";
import { addressKey, ConnectionsPerAddress } from "../../server/transport/node/connections-per-address";

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

describe("addressKey", () => {
  it("counts an IPv4 address as it is, an IPv4-mapped one as its IPv4 address, and IPv6 by its /64", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    // Every address of one /64 is one client: a fresh address per connection gains nothing.
    expect(addressKey("2001:db8:0:1::5")).toBe("2001:db8:0:1::/64");
    expect(addressKey("2001:db8:0:1:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:0:1::/64");
    expect(addressKey("2001:0DB8:0000:0001::")).toBe("2001:db8:0:1::/64");
    expect(addressKey("2001:db8:0:2::5")).not.toBe(addressKey("2001:db8:0:1::5"));
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});
