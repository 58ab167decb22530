// The first run of an install: nobody becomes an operator by signing up; operators are made by
// the one-time setup link (single use, expiring), by the CLI, or by OPERATOR_EMAILS; sign-up
// credits go once per user to their first workspace (tests/api/credits-help.test.ts has the text
// on getting credits).
import { describe, expect, it } from "vitest";
import { claimSetupToken, newSetupToken, SETUP_TOKEN_HOURS } from "../../server/identity/users/setup-token";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { db } from "../../server/infra/db/client";
import { env } from "../../server/infra/env";
import { cli } from "../cli-process";
import { newUser, userCaller } from "../helpers-dashboard";

const isOperator = async (id: string) => (await db.user.findUniqueOrThrow({ where: { id } })).isOperator;

describe("operators", () => {
  it("are not made by signing up", async () => {
    const user = await newUser();
    expect(await isOperator(user.id)).toBe(false);
    const caller = await userCaller(user.id);
    expect((await caller.account.me()).isOperator).toBe(false);
  });

  it("are made by the setup link, once, before it expires", async () => {
    const [first, second, late] = [await newUser(), await newUser(), await newUser()];
    const token = await newSetupToken();
    await expect((await userCaller(first.id)).account.claimSetup({ token: `${token}x` })).rejects.toMatchObject({ message: expect.stringContaining("not valid") });
    expect(await isOperator(first.id)).toBe(false);
    await expect((await userCaller(first.id)).account.claimSetup({ token })).resolves.toEqual({ isOperator: true });
    expect(await isOperator(first.id)).toBe(true);
    // Used up: nobody else gets in with it.
    await expect((await userCaller(second.id)).account.claimSetup({ token })).rejects.toMatchObject({ message: expect.stringContaining("not valid") });
    expect(await isOperator(second.id)).toBe(false);
    // A newer link replaces the older one; an expired one is refused.
    const older = await newSetupToken();
    const newer = await newSetupToken();
    await expect(claimSetupToken(late.id, older)).rejects.toMatchObject({ code: "setup_token_invalid" });
    await expect(claimSetupToken(late.id, newer, new Date(Date.now() + (SETUP_TOKEN_HOURS + 1) * 3_600_000))).rejects.toMatchObject({ code: "setup_token_invalid" });
    expect(await isOperator(late.id)).toBe(false);
    await db.installSetting.deleteMany({ where: { key: "setup-token" } });
  });

  it("are made and unmade by the CLI", async () => {
    const user = await newUser();
    const promoted = await cli("user", "promote", user.email, "--json");
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(JSON.parse(promoted.stdout)).toMatchObject({ email: user.email, isOperator: true });
    expect(await isOperator(user.id)).toBe(true);
    const listed = await cli("user", "list", "--json");
    expect((JSON.parse(listed.stdout) as { users: { email: string; isOperator: boolean }[] }).users).toContainEqual(expect.objectContaining({ email: user.email, isOperator: true }));
    const demoted = await cli("user", "demote", user.email);
    expect(demoted.stdout).toContain("is not an operator any more");
    expect(await isOperator(user.id)).toBe(false);
    const unknown = await cli("user", "promote", "nobody@example.test");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No user with the email nobody@example.test");
  });
});

describe("sign-up credits", () => {
  it("go once per user, to the first workspace they create", async () => {
    const saved = env.SIGNUP_CREDITS;
    env.SIGNUP_CREDITS = "2.5";
    try {
      const user = await newUser();
      const caller = await userCaller(user.id);
      const [a, b] = await Promise.all([caller.workspaces.create({ name: "first" }), caller.workspaces.create({ name: "second" })]);
      const balances = await db.workspace.findMany({ where: { id: { in: [a.id, b.id] } }, select: { balance: true } });
      expect(balances.map((w) => w.balance.toString()).sort()).toEqual(["0", "2.5"]);
      const third = await caller.workspaces.create({ name: "third" });
      expect((await db.workspace.findUniqueOrThrow({ where: { id: third.id } })).balance.toString()).toBe("0");
      const entries = await db.creditLedgerEntry.findMany({ where: { workspaceId: { in: [a.id, b.id, third.id] } } });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ note: "sign-up credits" });
      expect(entries[0]!.amount.toString()).toBe("2.5");
      // Workspaces made for a user another way (an operator's CLI) do not spend them.
      const other = await newUser();
      await createWorkspace({ name: "by the CLI", ownerUserId: other.id });
      expect((await db.user.findUniqueOrThrow({ where: { id: other.id } })).signupCreditsAt).toBeNull();
    } finally {
      env.SIGNUP_CREDITS = saved;
    }
  });

  it("are none by default", async () => {
    expect(env.SIGNUP_CREDITS).toBe("0");
    const caller = await userCaller((await newUser()).id);
    const ws = await caller.workspaces.create({ name: "no grant" });
    expect((await db.workspace.findUniqueOrThrow({ where: { id: ws.id } })).balance.toString()).toBe("0");
  });
});
