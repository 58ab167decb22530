// next-auth: email + password (Credentials) always; single sign-on's ticket (a second Credentials
// provider, "sso": our OIDC callback and SAML ACS do the protocol work, then hand over a
// single-use ticket, so that next-auth writes its own cookie); GitHub when GITHUB_ID and
// GITHUB_SECRET are set. Sessions are JWTs (the Credentials provider requires it); the token carries only the user
// id, and everything else (operator flag, memberships) is read fresh on every request.
import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import { db } from "../../infra/db/client";
import { env } from "../../infra/env";
import { derivedSecret } from "../../infra/secret-box";
import { authorizeWithPassword, SignInRefused } from "../../identity/users/authorize-password";
import { linkOAuthUser, mayUseOAuthAccount } from "../../identity/users/link-oauth-user";
import { ssoRequiredFor } from "../../identity/users/sso-required";
import { redeemSsoTicket } from "../../identity/sso/tickets";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("http");

// Self-hosted without NEXTAUTH_URL: take the origin from the Host header, as `next start` serves it.
if (!env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

export const githubEnabled = Boolean(env.GITHUB_ID && env.GITHUB_SECRET);

export const authOptions: NextAuthOptions = {
  secret: env.NEXTAUTH_SECRET ?? derivedSecret("next-auth"),
  session: { strategy: "jwt", maxAge: 30 * 24 * 3600 },
  pages: { signIn: "/signin", error: "/signin" },
  providers: [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, req) {
        try {
          return await authorizeWithPassword(credentials?.email ?? "", credentials?.password ?? "", headerOf(req.headers, "x-gateway-client-ip"));
        } catch (err) {
          // next-auth shows a thrown message to the browser: only our own refusals may reach it.
          if (err instanceof SignInRefused) throw err;
          log.error({ err }, "sign-in failed");
          throw new Error("Sign-in is unavailable right now. Try again shortly.");
        }
      },
    }),
    CredentialsProvider({
      id: "sso",
      name: "Single sign-on",
      credentials: { ticket: { label: "Ticket", type: "text" } },
      async authorize(credentials) {
        try {
          return await redeemSsoTicket(credentials?.ticket ?? "");
        } catch (err) {
          log.error({ err }, "single sign-on ticket could not be redeemed");
          throw new Error("Sign-in is unavailable right now. Try again shortly.");
        }
      },
    }),
    ...(githubEnabled ? [GitHubProvider({ clientId: env.GITHUB_ID!, clientSecret: env.GITHUB_SECRET! })] : []),
  ],
  callbacks: {
    async signIn({ user, account, profile }) {
      // The credentials providers (password, single sign-on's ticket) authorize themselves.
      if (!account || account.type === "credentials") return true;
      // A domain that requires single sign-on signs in no other way (the password is refused in authorizeWithPassword).
      const email = user.email ?? profile?.email ?? null;
      if (email && (await ssoRequiredFor(email))) return "/signin?error=SsoRequired";
      const ok = await mayUseOAuthAccount(account, { email: user.email ?? profile?.email ?? null, name: null, image: null });
      return ok ? true : "/signin?error=OAuthAccountNotLinked";
    },
    async jwt({ token, user, account, profile }) {
      if (account && account.type !== "credentials") {
        token.uid = await linkOAuthUser(account, { email: user.email ?? profile?.email ?? null, name: user.name ?? null, image: user.image ?? null });
      } else if (user) {
        token.uid = user.id;
      }
      if (account && typeof token.uid === "string") {
        // At sign-in: the user's session version (bumped to end every session at once) and how the session was opened.
        token.sv = (await db.user.findUnique({ where: { id: token.uid }, select: { sessionVersion: true } }))?.sessionVersion ?? 0;
        token.amr = account.provider === "credentials" ? "password" : account.provider;
      }
      return token;
    },
    session({ session, token }) {
      const id = typeof token.uid === "string" ? token.uid : undefined;
      const sv = typeof token.sv === "number" ? token.sv : undefined;
      const amr = typeof token.amr === "string" ? token.amr : undefined;
      return { ...session, user: { ...session.user, id, sv, amr } };
    },
  },
};

function headerOf(headers: unknown, name: string): string | null {
  if (!headers) return null;
  if (headers instanceof Headers) return headers.get(name);
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
