// A person who signs up in the page and owns a new workspace with credits and an API key (made
// directly in the database), with an `openai` client calling the gateway with that key.
import { expect, type Page } from "@playwright/test";
import OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { person, signUp } from "./helpers";

export async function signedUpOwner(page: Page, who: string, workspaceName: string): Promise<{ workspaceId: string; secret: string; openai: OpenAI }> {
  const p = person(who);
  await signUp(page, p);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  const user = await db.user.findUniqueOrThrow({ where: { email: p.email } });
  const { workspace, apiKey } = await createWorkspace({ name: workspaceName, credits: "5", ownerUserId: user.id, withKey: true });
  const secret = apiKey!.secret;
  return { workspaceId: workspace.id, secret, openai: new OpenAI({ baseURL: `${process.env.E2E_BASE_URL}/v1`, apiKey: secret, maxRetries: 0 }) };
}
