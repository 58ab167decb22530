// The invitation email over real SMTP, to a local SMTP server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { freePort } from "../../server/infra/net/free-port";
import { sendInvitationEmailWith } from "../../server/infra/mail/send-invitation";

type Received = { from: string; to: string[]; data: string };
const received: Received[] = [];
let server: SMTPServer;
let port: number;

beforeAll(async () => {
  port = await freePort();
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (chunk: Buffer) => (data += chunk.toString("utf8")));
      stream.on("end", () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), data });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const mail = { to: "new.person@example.test", token: "gwinv_abc123", workspaceName: "Acme\r\nBcc: x@evil.test", role: "member", inviter: "Owner", expiresAt: new Date("2030-01-01T00:00:00Z") };

describe("invitation emails", () => {
  it("with SMTP configured, sends the link on the configured public origin", async () => {
    const result = await sendInvitationEmailWith({ smtpUrl: `smtp://127.0.0.1:${port}`, from: "Gateway <gw@example.test>", origin: "https://gateway.example.test" }, mail);
    expect(result).toEqual({ emailed: true, note: null });
    const last = received.at(-1)!;
    expect(last.from).toBe("gw@example.test");
    expect(last.to).toEqual(["new.person@example.test"]);
    expect(last.data).toContain("https://gateway.example.test/invite/gwinv_abc123");
    // A workspace name cannot add headers (or recipients) to the mail.
    const headers = last.data.split("\r\n\r\n")[0]!;
    expect(headers).toContain("Subject: You are invited to Acme Bcc: x@evil.test on Model Gateway");
    expect(headers).not.toMatch(/^Bcc:/im);
  });

  it("sends nothing without SMTP_URL or without a public origin, and says why", async () => {
    const before = received.length;
    expect(await sendInvitationEmailWith({ smtpUrl: undefined, from: "x@example.test", origin: "https://gateway.example.test" }, mail)).toMatchObject({ emailed: false, note: expect.stringMatching(/SMTP_URL/) });
    expect(await sendInvitationEmailWith({ smtpUrl: `smtp://127.0.0.1:${port}`, from: "x@example.test", origin: undefined }, mail)).toMatchObject({ emailed: false, note: expect.stringMatching(/NEXTAUTH_URL/) });
    expect(received.length).toBe(before);
  });

  it("a mail server that refuses reports the failure instead of failing the invitation", async () => {
    const closed = await freePort();
    expect(await sendInvitationEmailWith({ smtpUrl: `smtp://127.0.0.1:${closed}`, from: "x@example.test", origin: "https://gateway.example.test" }, mail)).toMatchObject({ emailed: false, note: expect.stringMatching(/failed/) });
  });
});
