// Personal data and secrets in a text, found for redaction (each replaced by a typed placeholder
// such as [EMAIL]) or for blocking a call. Each kind is a fixed expression tried where it can start
// (an "@", a ":", the start of a number or of two capitals), then a check of its own: Luhn for
// cards and Canadian SINs, ISO 7064 mod 97 for IBANs, the NIR key, the SSN's unissued ranges.
//
// National ids recognised:
// - UK National Insurance numbers: AB123456C or AB 12 34 56 C (suffix A-D), without the prefixes
//   HMRC never issues (first letter D F I Q U V, second letter D F I O Q U V, BG GB KN NK NT TN ZZ),
//   except QQ, HMRC's specimen prefix, which its own examples use.
// - Canadian Social Insurance Numbers: 046 454 286 or 046-454-286, Luhn-valid.
// - French NIR (numéro de sécurité sociale): 13 digits and a 2-digit key (97 - n mod 97), compact
//   or spaced as 1 85 05 78 006 084 91, with Corsica's 2A / 2B departments.
//
// Every expression is linear on any text: no nested quantifiers over the same characters, every
// repetition bounded or ended by a character it cannot contain.
import { SECRET_SHAPES } from "../../request-log/capture/redact";

export type PiiKind = "email" | "phone" | "card" | "iban" | "ssn" | "national_id" | "ip" | "secret";

/** All kinds; on a tie (same start, same length) the earlier kind here is kept. */
export const PII_KINDS: readonly PiiKind[] = ["email", "phone", "card", "iban", "ssn", "national_id", "ip", "secret"];

/** One thing found: [start, end) offsets in the text (UTF-16), its kind, and its placeholder, e.g. "[EMAIL]". */
export type PiiFinding = { kind: PiiKind; start: number; end: number; placeholder: string };

const PLACEHOLDER: Record<PiiKind, string> = {
  email: "[EMAIL]",
  phone: "[PHONE]",
  card: "[CARD]",
  iban: "[IBAN]",
  ssn: "[SSN]",
  national_id: "[NATIONAL_ID]",
  ip: "[IP]",
  secret: "[SECRET]",
};

const ALL_KINDS: ReadonlySet<PiiKind> = new Set(PII_KINDS);

type Push = (kind: PiiKind, start: number, end: number) => void;

// ---- Characters ------------------------------------------------------------------------------

const isDigit = (c: number) => c >= 48 && c <= 57;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
/** A character of \w (ASCII letters, digits, underscore); NaN (outside the text) is not. */
const isWord = (c: number) => isDigit(c) || isUpper(c) || isLower(c) || c === 95;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
/** Characters of an email's local part: letters, digits and . _ % + - */
const isLocal = (c: number) => isWord(c) || c === 46 || c === 37 || c === 43 || c === 45;
/** Characters of an IPv6 address (with an IPv4 tail): hex digits, ":" and ".". */
const isV6 = (c: number) => isHex(c) || c === 58 || c === 46;

function digitsOf(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) if (isDigit(s.charCodeAt(i))) out += s[i];
  return out;
}

// ---- Checks ----------------------------------------------------------------------------------

/** The Luhn check (cards, Canadian SINs) on a string of digits. */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** One character more of a number taken mod 97: a digit, or a capital standing for 10-35. */
const mod97Step = (rest: number, c: number) => (isDigit(c) ? (rest * 10 + (c - 48)) % 97 : (rest * 100 + (c - 55)) % 97);

/**
 * The longest part of an IBAN candidate (capitals and digits, groups separated by single spaces)
 * that ends with a group and passes ISO 7064 mod 97-10: its first four characters moved to the
 * end, letters as 10-35, the number mod 97 is 1. Its length in the text, or 0.
 */
function validIbanLength(written: string): number {
  let rest = 0;
  let chars = 4;
  let best = 0;
  for (let i = 4; i <= written.length; i++) {
    const c = written.charCodeAt(i);
    if (i < written.length && c !== 32) {
      rest = mod97Step(rest, c);
      chars++;
    } else if (chars >= 15 && chars <= 34) {
      let moved = rest;
      for (let j = 0; j < 4; j++) moved = mod97Step(moved, written.charCodeAt(j));
      if (moved === 1) best = i;
    }
  }
  return best;
}

/** A US SSN's area, group and serial: none of them all zeros, the area not 666 nor 900-999. */
function ssnValid(area: string, group: string, serial: string): boolean {
  return area !== "000" && area !== "666" && area[0] !== "9" && group !== "00" && serial !== "0000";
}

const NINO_NEVER_FIRST = "DFIQUV";
const NINO_NEVER_SECOND = "DFIOQUV";
const NINO_NEVER_PREFIX = new Set(["BG", "GB", "KN", "NK", "NT", "TN", "ZZ"]);

/** A UK NINO's two-letter prefix is one HMRC issues (or QQ, its specimen prefix). */
function ninoPrefixValid(prefix: string): boolean {
  if (prefix === "QQ") return true;
  return !NINO_NEVER_FIRST.includes(prefix[0]!) && !NINO_NEVER_SECOND.includes(prefix[1]!) && !NINO_NEVER_PREFIX.has(prefix);
}

/** A French NIR (15 characters, spaces removed): its key is 97 - (the first 13 as a number) mod 97; 2A / 2B count as 19 / 18. */
function nirValid(nir: string): boolean {
  const body = nir.slice(0, 13).replace("2A", "19").replace("2B", "18");
  if (!/^\d{13}$/.test(body)) return false;
  return 97 - (Number(body) % 97) === Number(nir.slice(13));
}

function ipv4Valid(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => p.length >= 1 && p.length <= 3 && /^\d+$/.test(p) && Number(p) <= 255);
}

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** An IPv6 address in full (8 groups) or compressed ("::") form, possibly ending in an IPv4 address. */
function ipv6Valid(s: string): boolean {
  const halves = s.split("::");
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === "" ? [] : h.split(":")));
  let count = 0;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    if (HEX_GROUP.test(g)) count++;
    else if (i === groups.length - 1 && !s.endsWith("::") && ipv4Valid(g)) count += 2;
    else return false;
  }
  return halves.length === 2 ? count <= 7 : count === 8;
}

// ---- Numbers: phones, cards, SSNs, SINs, NIRs, IPv4 ----------------------------------------------

/** Not followed by a word character, nor by "." or "-" and a digit (the number would go on). */
const END = String.raw`(?!\w|[.-]\d)`;

/**
 * Phones, each shape tried in turn: international (+CC then groups, an area in brackets or the
 * "(0)" trunk allowed; or +CC and 7-15 digits together), US (555) 123-4567 / 555-123-4567,
 * UK and German national (020 7946 0958, (030) 1234567, 030/12345678), French 01 23 45 67 89.
 */
const PHONE = new RegExp(
  [
    String.raw`\+\d{1,3}(?:[ .-]?\(\d{1,5}\)[ .-]?|[ .-])\d{1,8}(?:[ .-]\d{1,8}){0,5}`,
    String.raw`\+\d{7,15}`,
    String.raw`\(\d{3}\) ?\d{3}[ .-]\d{4}`,
    String.raw`\d{3}([ .-])\d{3}\1\d{4}`,
    String.raw`\(0\d{2,4}\) ?\d{3,8}(?:[ -]\d{4})?`,
    String.raw`0\d{2,4}[ /-]\d{3,8}(?:[ -]\d{4})?`,
    String.raw`0[1-9]([ .-])\d{2}(?:\2\d{2}){3}`,
  ]
    .map((s) => `(?:${s}${END})`)
    .join("|"),
  "y",
);
/** 13-19 digits together, or in groups of 2-6 after a first group of 4, one separator throughout. */
const CARD = new RegExp(String.raw`(?:\d{13,19}|\d{4}([ -])\d{2,6}(?:\1\d{2,6}){1,3})${END}`, "y");
const SSN = new RegExp(String.raw`(\d{3})([ -])(\d{2})\2(\d{4})${END}`, "y");
const SIN = new RegExp(String.raw`\d{3}([ -])\d{3}\1\d{3}${END}`, "y");
const NIR = new RegExp(
  String.raw`(?:[1-478]\d{4}(?:\d{2}|2[AB])\d{6} ?\d{2}|[1-478] \d{2} \d{2} (?:\d{2}|2[AB]) \d{3} \d{3} \d{2})${END}`,
  "y",
);
const IPV4 = new RegExp(String.raw`\d{1,3}(?:\.\d{1,3}){3}${END}`, "y");

const NUMBER_KINDS: readonly PiiKind[] = ["phone", "card", "ssn", "national_id", "ip"];

/** Where a number starts: a digit not preceded by a word character. */
const NUMBER_START = /\b\d/g;

/** A candidate written in space-separated groups without its last group; undefined if it has one group. */
function withoutLastGroup(written: string): string | undefined {
  const space = written.lastIndexOf(" ");
  return space < 0 ? undefined : written.slice(0, space);
}

function stickyAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/** A phone at `at`: one of the shapes above, with 9-16 digits. */
function phoneAt(text: string, at: number, push: Push): void {
  const m = stickyAt(PHONE, text, at);
  if (!m) return;
  const n = digitsOf(m[0]).length;
  if (n >= 9 && n <= 16) push("phone", at, at + m[0].length);
}

/** The card at `at`; written in groups with spaces, trailing groups are dropped until Luhn passes (the text's next number may have looked like one). */
function cardAt(text: string, at: number, push: Push): void {
  const m = stickyAt(CARD, text, at);
  for (let written = m?.[0]; written; written = withoutLastGroup(written)) {
    const digits = digitsOf(written);
    if (digits.length < 13) return;
    if (digits.length <= 19 && luhnValid(digits)) return push("card", at, at + written.length);
  }
}

function ssnAt(text: string, at: number, push: Push): void {
  const m = stickyAt(SSN, text, at);
  if (m && ssnValid(m[1]!, m[3]!, m[4]!)) push("ssn", at, at + m[0].length);
}

function sinAt(text: string, at: number, push: Push): void {
  const m = stickyAt(SIN, text, at);
  if (m && luhnValid(digitsOf(m[0]))) push("national_id", at, at + m[0].length);
}

function nirAt(text: string, at: number, push: Push): void {
  const m = stickyAt(NIR, text, at);
  if (m && nirValid(m[0].replaceAll(" ", ""))) push("national_id", at, at + m[0].length);
}

function ipv4At(text: string, at: number, push: Push): void {
  const m = stickyAt(IPV4, text, at);
  if (m && ipv4Valid(m[0])) push("ip", at, at + m[0].length);
}

/**
 * The number-shaped kinds, tried at each number's start. The length of the first run of digits
 * and the character after it say which shapes can start there.
 */
function findNumbers(text: string, kinds: ReadonlySet<PiiKind>, push: Push): void {
  const phone = kinds.has("phone");
  const card = kinds.has("card");
  const ssn = kinds.has("ssn");
  const nationalId = kinds.has("national_id");
  const ip = kinds.has("ip");
  NUMBER_START.lastIndex = 0;
  for (let m = NUMBER_START.exec(text); m; m = NUMBER_START.exec(text)) {
    const at = m.index;
    const before = text.charCodeAt(at - 1);
    let run = at + 1;
    while (isDigit(text.charCodeAt(run))) run++;
    NUMBER_START.lastIndex = run;
    const n = run - at;
    const next = text.charCodeAt(run);
    const sep = next === 32 || next === 45; // " " or "-"
    if (phone && (before === 43 || before === 40) && !isWord(text.charCodeAt(at - 2))) phoneAt(text, at - 1, push); // "+" or "("
    // Inside a longer number (2026-11-29, 1.2.3.4.5): nothing starts here.
    if ((before === 46 || before === 45) && isDigit(text.charCodeAt(at - 2))) continue;
    const first = text.charCodeAt(at);
    if (phone && (n === 3 || (first === 48 && n >= 2 && n <= 5))) phoneAt(text, at, push);
    if (card && (n >= 13 || (n === 4 && sep))) cardAt(text, at, push);
    if (n === 3 && sep) {
      if (ssn) ssnAt(text, at, push);
      if (nationalId) sinAt(text, at, push);
    }
    if (nationalId && (n === 1 || n >= 6) && first >= 49 && first <= 56) nirAt(text, at, push);
    if (ip && n <= 3 && next === 46) ipv4At(text, at, push);
  }
}

// ---- Two capitals and digits: IBANs, UK National Insurance numbers ------------------------------

const CAPITALS_START = /\b[A-Z]{2} ?\d/g;
/** Country, check digits, then groups of 4 (a space allowed before each) and a last group of 1-4; capitals only. */
const IBAN = /[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?!\w)/y;
const NINO = /([A-Z]{2}) ?\d{2} ?\d{2} ?\d{2} ?[A-D](?!\w)/y;

/** The IBAN at `at`; written in groups, trailing groups are left out until the check passes (the text's next word may have looked like one). */
function ibanAt(text: string, at: number, push: Push): void {
  const m = stickyAt(IBAN, text, at);
  const length = m ? validIbanLength(m[0]) : 0;
  if (length > 0) push("iban", at, at + length);
}

function ninoAt(text: string, at: number, push: Push): void {
  const m = stickyAt(NINO, text, at);
  if (m && ninoPrefixValid(m[1]!)) push("national_id", at, at + m[0].length);
}

function findCapitals(text: string, kinds: ReadonlySet<PiiKind>, push: Push): void {
  const iban = kinds.has("iban");
  const nino = kinds.has("national_id");
  CAPITALS_START.lastIndex = 0;
  for (let m = CAPITALS_START.exec(text); m; m = CAPITALS_START.exec(text)) {
    const at = m.index;
    CAPITALS_START.lastIndex = at + 2;
    if (iban) ibanAt(text, at, push);
    if (nino) ninoAt(text, at, push);
  }
}

// ---- Emails ----------------------------------------------------------------------------------

/** An email's domain after its "@": up to 8 labels and a TLD of letters. */
const DOMAIN = /(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,63}(?![A-Za-z0-9-])/y;
const LOCAL_MAX = 64;

/** Emails, from each "@": its local part (at most 64 characters, not starting or ending with ".") and its domain. */
function findEmails(text: string, push: Push): void {
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    let start = at;
    while (start > 0 && at - start < LOCAL_MAX && isLocal(text.charCodeAt(start - 1))) start--;
    if (start > 0 && isLocal(text.charCodeAt(start - 1))) continue;
    while (start < at && text.charCodeAt(start) === 46) start++;
    if (start === at || text.charCodeAt(at - 1) === 46) continue;
    const domain = stickyAt(DOMAIN, text, at + 1);
    if (!domain) continue;
    const end = at + 1 + domain[0].length;
    push("email", start, end);
    at = end - 1;
  }
}

// ---- IPv6 ------------------------------------------------------------------------------------

const MIN_V6 = 3; // "::1"

/** IPv6 addresses, from each ":": the run of hex digits, ":" and "." around it, with at least one decimal digit. */
function findIpv6(text: string, push: Push): void {
  for (let colon = text.indexOf(":"); colon >= 0; ) {
    let start = colon;
    while (start > 0 && isV6(text.charCodeAt(start - 1))) start--;
    let end = colon + 1;
    while (end < text.length && isV6(text.charCodeAt(end))) end++;
    const next = text.indexOf(":", end);
    if (!isWord(text.charCodeAt(start - 1)) && !isWord(text.charCodeAt(end))) {
      while (text.charCodeAt(end - 1) === 46) end--; // a sentence's full stop
      if (text.charCodeAt(end - 1) === 58 && text.charCodeAt(end - 2) !== 58) end--; // "2001:db8::1: unreachable"
      if (text.charCodeAt(start) === 58 && text.charCodeAt(start + 1) !== 58) start++;
      const s = text.slice(start, end);
      if (s.length >= MIN_V6 && /\d/.test(s) && ipv6Valid(s)) push("ip", start, end);
    }
    colon = next;
  }
}

// ---- Secrets ---------------------------------------------------------------------------------

/** A shape with a capturing group (a backreference may count on its number) is not merged with others. */
const hasGroup = (re: RegExp) => /\((?!\?(?:[:=!]|<[=!]))/.test(re.source.replace(/\\./g, ""));

/**
 * The request log's secret shapes, merged into one expression per set of flags (one scan instead
 * of one per shape); copies, so their lastIndex is ours to move.
 */
const SECRETS: RegExp[] = (() => {
  const byFlags = new Map<string, string[]>();
  const alone: RegExp[] = [];
  for (const re of SECRET_SHAPES) {
    if (hasGroup(re)) alone.push(new RegExp(re.source, re.flags));
    else byFlags.set(re.flags, [...(byFlags.get(re.flags) ?? []), `(?:${re.source})`]);
  }
  return [...[...byFlags].map(([flags, sources]) => new RegExp(sources.join("|"), flags)), ...alone];
})();

function findSecrets(text: string, push: Push): void {
  for (const re of SECRETS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      else push("secret", m.index, m.index + m[0].length);
    }
  }
}

// ---- Findings --------------------------------------------------------------------------------

const KIND_RANK = new Map(PII_KINDS.map((k, i) => [k, i]));

/** Sorted by start, then longer first, then by kind; a finding overlapping a kept one is dropped. */
function resolveOverlaps(found: PiiFinding[]): PiiFinding[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end || KIND_RANK.get(a.kind)! - KIND_RANK.get(b.kind)!);
  const kept: PiiFinding[] = [];
  let end = 0;
  for (const f of found) {
    if (f.start < end) continue;
    kept.push(f);
    end = f.end;
  }
  return kept;
}

/** Everything of the given kinds (default: all) in the text, sorted by start, never overlapping (on overlap keep the earlier-starting, then the longer). */
export function findPii(text: string, kinds: ReadonlySet<PiiKind> = ALL_KINDS): PiiFinding[] {
  const found: PiiFinding[] = [];
  const push: Push = (kind, start, end) => {
    found.push({ kind, start, end, placeholder: PLACEHOLDER[kind] });
  };
  if (kinds.has("email")) findEmails(text, push);
  if (NUMBER_KINDS.some((k) => kinds.has(k))) findNumbers(text, kinds, push);
  if (kinds.has("iban") || kinds.has("national_id")) findCapitals(text, kinds, push);
  if (kinds.has("ip")) findIpv6(text, push);
  if (kinds.has("secret")) findSecrets(text, push);
  return found.length > 1 ? resolveOverlaps(found) : found;
}

/** The text with each finding replaced by its placeholder. */
export function redactFindings(text: string, findings: readonly PiiFinding[]): string {
  const sorted = [...findings].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const f of sorted) {
    if (f.start < at) continue; // overlaps one already replaced
    out += text.slice(at, f.start) + f.placeholder;
    at = f.end;
  }
  return out + text.slice(at);
}
