// The invitation email. Sent only when SMTP_URL is configured and the dashboard's public origin
// is known (NEXTAUTH_URL, else PUBLIC_BASE_URL): a link built from a request's Host header could
// be pointed at another site by whoever sends that header. Never throws: the invite link has
// already been shown to the inviter, so a mail failure is reported, not raised.
import type { Transporter } from "nodemailer";
import { env } from "../env";
import { logFor } from "../telemetry/log";

const log = logFor("mail");

export type InvitationEmail = { to: string; token: string; workspaceName: string; role: string; inviter: string; expiresAt: Date };
export type InvitationEmailResult = { emailed: boolean; note: string | null };

/** Timeouts so a silent mail server cannot hold the invite request for minutes. */
const TIMEOUTS = { connectionTimeout: "10000", greetingTimeout: "10000", socketTimeout: "15000" };

let transport: { url: string; transporter: Transporter } | undefined;

async function transporter(smtpUrl: string): Promise<Transporter> {
  if (transport?.url !== smtpUrl) {
    const url = new URL(smtpUrl);
    for (const [key, value] of Object.entries(TIMEOUTS)) if (!url.searchParams.has(key)) url.searchParams.set(key, value);
    const { default: nodemailer } = await import("nodemailer"); // loaded on first use
    transport = { url: smtpUrl, transporter: nodemailer.createTransport(url.toString()) };
  }
  return transport.transporter;
}

export function invitationLink(origin: string, token: string): string {
  return new URL(`/invite/${encodeURIComponent(token)}`, origin).toString();
}

function body(mail: InvitationEmail, link: string): string {
  return [
    `${mail.inviter} invited you to join the workspace "${mail.workspaceName}" on Model Gateway as ${mail.role}.`,
    "",
    "Accept the invitation:",
    link,
    "",
    `The link can be used once and expires on ${mail.expiresAt.toUTCString()}.`,
    `It only works for an account with the address ${mail.to}.`,
    "If you did not expect this invitation, ignore this email.",
  ].join("\n");
}

export type MailConfig = { smtpUrl: string | undefined; from: string; origin: string | undefined };

export function sendInvitationEmail(mail: InvitationEmail): Promise<InvitationEmailResult> {
  return sendInvitationEmailWith({ smtpUrl: env.SMTP_URL, from: env.SMTP_FROM, origin: env.NEXTAUTH_URL ?? env.PUBLIC_BASE_URL }, mail);
}

export async function sendInvitationEmailWith(config: MailConfig, mail: InvitationEmail): Promise<InvitationEmailResult> {
  if (!config.smtpUrl) return { emailed: false, note: "Email is not configured on this gateway (SMTP_URL); share the link yourself." };
  if (!config.origin) return { emailed: false, note: "The gateway's public address is not configured (NEXTAUTH_URL); share the link yourself." };
  try {
    await (await transporter(config.smtpUrl)).sendMail({
      from: config.from,
      to: mail.to,
      subject: `You are invited to ${mail.workspaceName.replace(/[\r\n]+/g, " ")} on Model Gateway`,
      text: body(mail, invitationLink(config.origin, mail.token)),
    });
    return { emailed: true, note: null };
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : err }, "invitation email failed");
    return { emailed: false, note: "Sending the email failed; share the link yourself." };
  }
}
