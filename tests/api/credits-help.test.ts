// How a workspace without credits is told to get some: the API's 402 says whether it never had
// any or has none left, and how to get them (the operator's text, or the default); the text is
// the operators' to set and every signed-in user's to read. The only file that changes the text.
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CREDITS_HELP, setCreditsHelp } from "../../server/ledger/credits-help";
import { newWorkspace, until } from "../helpers";
import { newUser, userCaller } from "../helpers-dashboard";

const CHAT = "local-chat-sim";
const ask = [{ role: "user" as const, content: "hello" }];

async function refusal(openai: Awaited<ReturnType<typeof newWorkspace>>["openai"]): Promise<{ status: number; code: string; message: string }> {
  const err = (await openai.chat.completions.create({ model: CHAT, messages: ask }).then(
    () => null,
    (e: unknown) => e,
  )) as { status: number; code: string; error: { message: string } } | null;
  expect(err, "the call was refused").not.toBeNull();
  return { status: err!.status, code: err!.code, message: err!.error.message };
}

afterAll(async () => {
  await setCreditsHelp("");
});

describe("a workspace without credits", () => {
  it("that never had any is told so, and how to get them", async () => {
    const { openai } = await newWorkspace("0");
    expect(await refusal(openai)).toEqual({ status: 402, code: "insufficient_quota", message: `This workspace has no credits yet. ${DEFAULT_CREDITS_HELP}` });
  });

  it("that spent them is told it has none left", async () => {
    const { openai } = await newWorkspace("0.000000000000000001");
    const r = await refusal(openai);
    expect(r.status).toBe(402);
    expect(r.message).toBe(`Your workspace has no credits left. ${DEFAULT_CREDITS_HELP}`);
  });
});

describe("the text on getting credits", () => {
  it("is set by operators only, read by every signed-in user, and said by the API", async () => {
    const member = await userCaller((await newUser()).id);
    const operator = await userCaller((await newUser({ operator: true })).id);
    await expect(member.billing.setCreditsHelp({ text: "mine" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(operator.billing.setCreditsHelp({ text: "x".repeat(501) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await operator.billing.setCreditsHelp({ text: "  Email billing@acme.test to buy credits.  " })).toEqual({ text: "Email billing@acme.test to buy credits." });
    expect(await member.billing.creditsHelp()).toEqual({ text: "Email billing@acme.test to buy credits.", defaultText: DEFAULT_CREDITS_HELP });

    // The gateway reads it from memory, at most a few seconds old.
    const { openai } = await newWorkspace("0");
    const { value } = await until(() => refusal(openai), (r) => r.message.includes("billing@acme.test"), 8000);
    expect(value.message).toBe("This workspace has no credits yet. Email billing@acme.test to buy credits.");

    expect(await operator.billing.setCreditsHelp({ text: "" })).toEqual({ text: null });
    expect((await member.billing.creditsHelp()).text).toBeNull();
  });
});
