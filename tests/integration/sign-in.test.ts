import { describe, expect, it } from "vitest";
import { authorizeWithPassword } from "../../server/identity/users/authorize-password";
import { linkOAuthUser, mayUseOAuthAccount } from "../../server/identity/users/link-oauth-user";
import { signUp } from "../../server/identity/users/sign-up";
import { db } from "../../server/infra/db/client";
import { env } from "../../server/infra/env";
import { newUser } from "../helpers-dashboard";

const ip = () => `10.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

describe("sign-in with email and password", () => {
  it("stores an Argon2id hash, never the password", async () => {
    const u = await newUser();
    const row = await db.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(JSON.stringify(row)).not.toContain(u.password);
  });

  it("signs in with the right password only; the email is matched case-insensitively", async () => {
    const u = await newUser();
    expect(await authorizeWithPassword(u.email.toUpperCase(), u.password, ip())).toMatchObject({ id: u.id, email: u.email });
    expect(await authorizeWithPassword(u.email, "not the password", ip())).toBeNull();
    expect(await authorizeWithPassword("nobody@example.test", u.password, ip())).toBeNull();
    expect(await authorizeWithPassword("not an email", u.password, ip())).toBeNull();
  });

  it("refuses a second account with the same email (409) and a short password (validation)", async () => {
    const u = await newUser();
    await expect(signUp({ name: "Again", email: u.email, password: "another long password" })).rejects.toMatchObject({ status: 409, code: "email_taken" });
    await expect(signUp({ name: "Short", email: "short@example.test", password: "short" })).rejects.toThrow(/at least 10/);
  });

  it(`throttles an email after ${env.SIGN_IN_MAX_FAILURES} failures, even with the right password, from any address`, async () => {
    const u = await newUser();
    for (let i = 0; i < env.SIGN_IN_MAX_FAILURES; i++) expect(await authorizeWithPassword(u.email, `wrong ${i}`, ip())).toBeNull();
    await expect(authorizeWithPassword(u.email, u.password, ip())).rejects.toThrow(/Too many failed sign-ins/);
    // The window ending (moved into the past here) lifts the lock.
    await db.signInThrottle.update({ where: { key: `email:${u.email}` }, data: { windowStart: new Date(Date.now() - (env.SIGN_IN_WINDOW_SECONDS + 1) * 1000) } });
    expect(await authorizeWithPassword(u.email, u.password, ip())).toMatchObject({ id: u.id });
  });

  it("guesses sent in parallel are counted before they are checked: no more than the limit get a verdict", async () => {
    const u = await newUser();
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => authorizeWithPassword(u.email, `wrong ${i}`, ip())));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(env.SIGN_IN_MAX_FAILURES);
    expect(results.filter((r) => r.status === "rejected" && /Too many failed sign-ins/.test(String(r.reason)))).toHaveLength(20 - env.SIGN_IN_MAX_FAILURES);
  });

  it("throttles one address guessing across many emails", async () => {
    const address = ip();
    await db.signInThrottle.create({ data: { key: `ip:${address}`, failures: env.SIGN_IN_MAX_FAILURES_PER_IP } });
    const u = await newUser();
    await expect(authorizeWithPassword(u.email, u.password, address)).rejects.toThrow(/Too many failed sign-ins/);
    expect(await authorizeWithPassword(u.email, u.password, ip())).toMatchObject({ id: u.id });
  });

  it("a success clears the email's failures", async () => {
    const u = await newUser();
    for (let i = 0; i < env.SIGN_IN_MAX_FAILURES - 1; i++) await authorizeWithPassword(u.email, "wrong", ip());
    await authorizeWithPassword(u.email, u.password, ip());
    expect(await db.signInThrottle.findUnique({ where: { key: `email:${u.email}` } })).toBeNull();
  });
});

describe("sign-in with GitHub (OAuth)", () => {
  const github = (id: string) => ({ provider: "github", providerAccountId: id, type: "oauth" as const });

  it("never takes over an existing account that has the same email", async () => {
    const u = await newUser();
    expect(await mayUseOAuthAccount(github(`gh-${u.id}`), { email: u.email.toUpperCase(), name: null, image: null })).toBe(false);
  });

  it("creates a user for a new GitHub account and signs the same one in again", async () => {
    const id = `gh-${Math.random().toString(36).slice(2)}`;
    const email = `${id}@example.test`;
    expect(await mayUseOAuthAccount(github(id), { email, name: "Octo", image: null })).toBe(true);
    const userId = await linkOAuthUser(github(id), { email, name: "Octo", image: null });
    expect(await mayUseOAuthAccount(github(id), { email, name: "Octo", image: null })).toBe(true);
    expect(await linkOAuthUser(github(id), { email, name: "Octo", image: null })).toBe(userId);
    const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
    expect(user).toMatchObject({ email, name: "Octo", passwordHash: null, isOperator: false });
  });
});
