// A person who signs up in the page and owns a new workspace with credits and an API key (made
// directly in the database), with an `openai` client calling the gateway with that key.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { person, signUp, watchConsole } from "./helpers";

export async function signedUpOwner(page: Page, who: string, workspaceName: string): Promise<{ workspaceId: string; secret: string; openai: OpenAI }> {
  const p = person(who);
  await signUp(page, p);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  const user = await db.user.findUniqueOrThrow({ where: { email: p.email } });
  const { workspace, apiKey } = await createWorkspace({ name: workspaceName, credits: "5", ownerUserId: user.id, withKey: true });
  const secret = apiKey!.secret;
  return { workspaceId: workspace.id, secret, openai: new OpenAI({ baseURL: `${process.env.E2E_BASE_URL}/v1`, apiKey: secret, maxRetries: 0 }) };
}

/** What a serial spec of one owner shares: its page (in a context of its own) and workspace, set up before its tests. */
export type OwnerSuite = { page: Page; workspaceId: string; secret: string; openai: OpenAI };

/**
 * Registers the hooks of a serial spec run by one signed-up owner: a browser context and page of
 * its own, the owner and workspace made before the first test, no console errors after each test,
 * and the context closed at the end. Read the returned object's fields inside the tests.
 */
export function ownerSuite(who: string, workspaceName: string): OwnerSuite {
  const suite = {} as OwnerSuite;
  let context: BrowserContext;
  let consoleWatch: ReturnType<typeof watchConsole>;
  test.beforeAll(async ({ browser }: { browser: Browser }) => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    suite.page = await context.newPage();
    consoleWatch = watchConsole(suite.page);
    Object.assign(suite, await signedUpOwner(suite.page, who, workspaceName));
  });
  test.afterEach(() => consoleWatch.expectNone());
  test.afterAll(async () => {
    await context.close();
    await db.$disconnect();
  });
  return suite;
}
