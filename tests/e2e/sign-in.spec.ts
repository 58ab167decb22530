import { expect, test } from "@playwright/test";
import { person, screenshot, signIn, signUp, url, visit, watchConsole } from "./helpers";

test("sign-up and sign-in pages, sign out, and throttling after repeated failures", async ({ page }, info) => {
  const console = watchConsole(page);
  await visit(page, url("/signin"));
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  // GitHub sign-in is off unless GITHUB_ID and GITHUB_SECRET are set.
  await expect(page.getByRole("button", { name: "Sign in with GitHub" })).toHaveCount(0);
  await screenshot(page, "signin", info);
  await visit(page, url("/signup"));
  await screenshot(page, "signup", info);

  const who = person("Casey");
  await signUp(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);

  // A wrong password is refused with a clear message, and does not sign in.
  await page.context().clearCookies();
  await signIn(page, { email: who.email, password: "wrong password!" });
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();

  // The right password works; signing out ends the session.
  await signIn(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  await visit(page, url("/dashboard"));
  await page.context().clearCookies();
  await visit(page, url("/dashboard"));
  await expect(page).toHaveURL(/\/signin/);

  // Five failures lock the email for the window: even the right password is refused then.
  for (let i = 0; i < 5; i++) {
    await signIn(page, { email: who.email, password: `wrong password ${i}` });
    await expect(page.getByRole("alert").filter({ hasText: /Wrong email or password|Too many failed sign-ins/ })).toBeVisible();
  }
  await signIn(page, who);
  await expect(page.getByRole("alert").filter({ hasText: "Too many failed sign-ins" })).toBeVisible();
  await expect(page).toHaveURL(/\/signin/);
  console.expectNone();
});

test("the sign-in form works from the keyboard alone", async ({ page }) => {
  const watch = watchConsole(page);
  const who = person("Kim");
  await signUp(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  await page.context().clearCookies();
  await visit(page, url("/signin"));
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Email")).toBeFocused();
  await page.keyboard.type(who.email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password")).toBeFocused();
  await page.keyboard.type(who.password);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  // The new-workspace form too: its only field has the focus; type a name, Enter creates it.
  await expect(page.getByLabel("Workspace name")).toBeFocused();
  await page.keyboard.type("Keyboard Co");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/w\/ws_\w+\/start$/);
  watch.expectNone();
});
