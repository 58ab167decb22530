import { describe, expect, it } from "vitest";
import { findPii, PII_KINDS, redactFindings, type PiiKind } from "../../server/guardrails/detectors/pii";

/** What was found, as [kind, the text found]. */
const found = (text: string, kinds?: ReadonlySet<PiiKind>) => findPii(text, kinds).map((f) => [f.kind, text.slice(f.start, f.end)]);
/** The one thing found in `text`, if there is exactly one. */
const only = (text: string) => {
  const all = found(text);
  return all.length === 1 ? all[0] : all;
};

describe("findPii: emails", () => {
  it("finds addresses with plus-addressing, subdomains and around punctuation", () => {
    expect(only("write to jane.doe+x@example.co.uk.")).toEqual(["email", "jane.doe+x@example.co.uk"]);
    expect(only("From: Jane <a@b.co>")).toEqual(["email", "a@b.co"]);
    expect(only("(first_last-1@mail.eu-west.example.com)")).toEqual(["email", "first_last-1@mail.eu-west.example.com"]);
    expect(only("mailto:ops@corp.io")).toEqual(["email", "ops@corp.io"]);
  });

  it("does not take handles, hosts without a TLD or a local part over 64 characters", () => {
    expect(found("ask @jane or user@localhost or a@b or x@example.c")).toEqual([]);
    expect(found(`${"a".repeat(65)}@example.com`)).toEqual([]);
    expect(found(".@example.com and jane.@example.com")).toEqual([]);
  });
});

describe("findPii: phones", () => {
  it.each([
    "(555) 123-4567",
    "555-123-4567",
    "555.123.4567",
    "+1 555 123 4567",
    "+1 (555) 123-4567",
    "+15551234567",
    "+44 20 7946 0958",
    "+44 (0)20 7946 0958",
    "020 7946 0958",
    "07700 900123",
    "+33 1 23 45 67 89",
    "01 23 45 67 89",
    "+49 30 12345678",
    "+49 (0)30 1234 5678",
    "030 12345678",
    "(030) 1234567",
    "030/1234567",
  ])("finds %s", (phone) => {
    expect(only(`Call ${phone}, please.`)).toEqual(["phone", phone]);
  });

  it("does not take dates, versions, times, short numbers or plain digit runs", () => {
    expect(found("on 2026-11-29 at 12:30:45 with v1.2.3 and 1.2.3, ext 555-1234, +1 555, order 123456789012")).toEqual([]);
    expect(found("29.11.2026 and 11/29/2026 and 2026-11-29T12:30:45Z")).toEqual([]);
  });

  it("a card number is a card, not a phone", () => {
    expect(only("4111111111111111")).toEqual(["card", "4111111111111111"]);
  });
});

describe("findPii: cards", () => {
  it("finds Luhn-valid numbers of 13-19 digits, together or grouped, before a full stop", () => {
    expect(only("card 4111 1111 1111 1111.")).toEqual(["card", "4111 1111 1111 1111"]);
    expect(only("card 5555-5555-5555-4444")).toEqual(["card", "5555-5555-5555-4444"]);
    expect(only("amex 3782 822463 10005")).toEqual(["card", "3782 822463 10005"]);
    expect(only("4111111111111111")).toEqual(["card", "4111111111111111"]);
    expect(only("card 4111 1111 1111 1111 12 times")).toEqual(["card", "4111 1111 1111 1111"]);
  });

  it("does not take Luhn-invalid numbers, mixed separators or a part of a longer number", () => {
    expect(found("card 4111 1111 1111 1112")).toEqual([]);
    expect(found("4111111111111112")).toEqual([]);
    expect(found("4111 1111-1111 1111")).toEqual([]);
    expect(found("41111111111111110")).toEqual([]); // 17 digits, Luhn-invalid
    expect(found("4111-1111-1111-1111-2222-3333")).toEqual([]);
  });
});

describe("findPii: IBANs", () => {
  it("finds IBANs whose mod-97 check passes, compact or in groups of 4", () => {
    expect(only("IBAN: GB82 WEST 1234 5698 7654 32.")).toEqual(["iban", "GB82 WEST 1234 5698 7654 32"]);
    expect(only("DE89370400440532013000")).toEqual(["iban", "DE89370400440532013000"]);
    expect(only("pay DE89 3704 0044 0532 0130 00 TODAY")).toEqual(["iban", "DE89 3704 0044 0532 0130 00"]);
  });

  it("does not take wrong check digits", () => {
    expect(found("GB83 WEST 1234 5698 7654 32")).toEqual([]);
    expect(found("DE88370400440532013000")).toEqual([]);
  });
});

describe("findPii: SSNs", () => {
  it("finds US SSNs with dashes or spaces", () => {
    expect(only("SSN 123-45-6789.")).toEqual(["ssn", "123-45-6789"]);
    expect(only("SSN 123 45 6789")).toEqual(["ssn", "123 45 6789"]);
  });

  it("does not take unissued areas, groups or serials, nor mixed separators", () => {
    for (const ssn of ["000-12-3456", "666-12-3456", "900-12-3456", "999-12-3456", "123-00-4567", "123-45-0000", "123-45 6789"]) {
      expect(found(`SSN ${ssn}`), ssn).toEqual([]);
    }
  });
});

describe("findPii: national ids", () => {
  it("finds UK National Insurance numbers, spaced or not", () => {
    expect(only("NI QQ 12 34 56 C")).toEqual(["national_id", "QQ 12 34 56 C"]);
    expect(only("NI AB123456C.")).toEqual(["national_id", "AB123456C"]);
  });

  it("does not take prefixes HMRC never issues nor suffixes past D", () => {
    expect(found("DA123456C FA123456C AO123456C GB123456A NK123456B ZZ123456D AB123456E")).toEqual([]);
  });

  it("finds Luhn-valid Canadian SINs and not others", () => {
    expect(only("SIN 046 454 286")).toEqual(["national_id", "046 454 286"]);
    expect(only("SIN 046-454-286")).toEqual(["national_id", "046-454-286"]);
    expect(found("SIN 046 454 287")).toEqual([]);
  });

  it("finds French NIRs whose key is right, compact or spaced, Corsica included", () => {
    expect(only("NIR 1 85 05 78 006 084 91")).toEqual(["national_id", "1 85 05 78 006 084 91"]);
    expect(only("NIR 185057800608491")).toEqual(["national_id", "185057800608491"]);
    expect(only("NIR 2 90 11 2A 004 012 65")).toEqual(["national_id", "2 90 11 2A 004 012 65"]);
    expect(found("NIR 1 85 05 78 006 084 92")).toEqual([]);
  });
});

describe("findPii: IP addresses", () => {
  it("finds IPv4 addresses", () => {
    expect(only("from 192.168.1.20.")).toEqual(["ip", "192.168.1.20"]);
    expect(only("(10.0.0.1)")).toEqual(["ip", "10.0.0.1"]);
  });

  it("does not take octets over 255, versions or part of a longer dotted number", () => {
    expect(found("256.1.1.1 and 1.2.3 and 1.2.3.4.5 and v1.2.3.4 and 10.0.19041.1")).toEqual([]);
  });

  it.each(["2001:db8::1", "::1", "fe80::1ff:fe23:4567:890a", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "::ffff:192.0.2.1"])(
    "finds IPv6 %s",
    (ip) => {
      expect(found(`host [${ip}] and ${ip}.`)).toEqual([
        ["ip", ip],
        ["ip", ip],
      ]);
    },
  );

  it("leaves out a colon or full stop after an IPv6 address", () => {
    expect(found("ping 2001:db8::1: timeout")).toEqual([["ip", "2001:db8::1"]]);
  });

  it("does not take times, C++ scopes, MAC addresses or words around a colon", () => {
    expect(found("at 12:30:45, std::vector, a::b, 00:1a:2b:3c:4d:5e, Note: added: fade::, 1:2:3:4:5:6:7:8:9")).toEqual([]);
  });
});

describe("findPii: secrets", () => {
  it("finds the request log's secret shapes", () => {
    const key = `sk-${"a1B2".repeat(6)}`;
    expect(only(`key=${key} ok`)).toEqual(["secret", key]);
    const aws = `AKIA${"ABCDEFGHIJ234567"}`;
    expect(only(`aws ${aws}`)).toEqual(["secret", aws]);
  });
});

describe("findPii: overlaps and kinds", () => {
  it("keeps the earlier-starting, then the longer of overlapping candidates", () => {
    // The IPv6 address contains an IPv4 one; the international phone contains a US-shaped one.
    expect(found("::ffff:192.0.2.1 and +1 555 123 4567")).toEqual([
      ["ip", "::ffff:192.0.2.1"],
      ["phone", "+1 555 123 4567"],
    ]);
    // A bearer token is a JWT as well: one secret.
    const jwt = `eyJ${"a".repeat(10)}.${"b".repeat(10)}.${"c".repeat(10)}`;
    expect(found(`Authorization: Bearer ${jwt}`)).toEqual([["secret", `Bearer ${jwt}`]]);
  });

  it("returns findings sorted by start, never overlapping", () => {
    const text = "a@b.co 4111 1111 1111 1111 123-45-6789 10.0.0.1 GB82 WEST 1234 5698 7654 32 +44 20 7946 0958";
    const all = findPii(text);
    expect(all.map((f) => f.kind)).toEqual(["email", "card", "ssn", "ip", "iban", "phone"]);
    for (let i = 1; i < all.length; i++) expect(all[i]!.start).toBeGreaterThanOrEqual(all[i - 1]!.end);
    expect(all.map((f) => f.placeholder)).toEqual(["[EMAIL]", "[CARD]", "[SSN]", "[IP]", "[IBAN]", "[PHONE]"]);
  });

  it("finds only the kinds asked for", () => {
    const text = "Mail jane@example.com, call 555-123-4567 from 10.0.0.1";
    expect(found(text, new Set<PiiKind>(["email"]))).toEqual([["email", "jane@example.com"]]);
    expect(found(text, new Set<PiiKind>(["phone", "ip"]))).toEqual([
      ["phone", "555-123-4567"],
      ["ip", "10.0.0.1"],
    ]);
    expect(found(text, new Set<PiiKind>())).toEqual([]);
    expect(PII_KINDS).toHaveLength(8);
  });
});

describe("redactFindings", () => {
  it("replaces each finding by its placeholder", () => {
    const text = "Mail jane.doe+x@example.co.uk or call +1 (555) 123-4567";
    expect(redactFindings(text, findPii(text))).toBe("Mail [EMAIL] or call [PHONE]");
  });

  it("keeps a text with nothing found as it is", () => {
    expect(redactFindings("nothing here", findPii("nothing here"))).toBe("nothing here");
  });

  it("redacts every kind", () => {
    const text = "SSN 123-45-6789, NI AB123456C, card 4111111111111111, IBAN DE89370400440532013000, ip ::1";
    expect(redactFindings(text, findPii(text))).toBe("SSN [SSN], NI [NATIONAL_ID], card [CARD], IBAN [IBAN], ip [IP]");
  });
});

describe("findPii on a large text", () => {
  it("returns on 200 KB of prose, digits, capitals, '@' and ':' runs", () => {
    const prose = "The quarterly report (v2.3.1, 2026-11-29 12:30) lists 1,204 orders; write to ops@example.com. ";
    const parts = [
      prose.repeat(1000),
      "a".repeat(20_000) + "@",
      "1".repeat(20_000),
      "1 ".repeat(10_000),
      "AB".repeat(10_000) + "12",
      "a:".repeat(10_000),
      "@a.".repeat(5_000),
      "+1 ".repeat(5_000),
    ];
    const text = parts.join(" ");
    expect(text.length).toBeGreaterThan(200_000);
    const all = findPii(text);
    expect(all.filter((f) => f.kind === "email")).toHaveLength(1000);
  });
});
