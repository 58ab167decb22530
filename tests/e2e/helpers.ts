// Browser test helpers: the gateway's address, sign-up through the real pages, screenshots kept
// as test artifacts, and a watch on console errors (hydration warnings included).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, type Page, type TestInfo } from "@playwright/test";

export const url = (p: string) => `${process.env.E2E_BASE_URL}${p}`;

/**
 * Opens a page and waits until React has hydrated it: a form typed into before that loses its
 * input (the controlled fields reset) and a click submits nothing.
 */
export async function visit(page: Page, address: string): Promise<void> {
  await page.goto(address);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

export const SCREENSHOT_DIR = path.join("test-results", "screenshots");

/** Saves a full-page screenshot under test-results/screenshots and attaches it to the report. */
export async function screenshot(page: Page, name: string, info: TestInfo): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await info.attach(name, { path: file, contentType: "image/png" });
}

/** Collects console errors and uncaught page errors; `expectNone` fails the test if any appeared. */
export function watchConsole(page: Page): { errors: string[]; expectNone: () => void } {
  const errors: string[] = [];
  page.on("console", (msg) => {
    // Chromium logs every 4xx answer as a console error; refused calls are what some tests check.
    if (msg.type() === "error" && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  return { errors, expectNone: () => expect(errors, "console errors").toEqual([]) };
}

export type Person = { name: string; email: string; password: string };

export function person(name: string): Person {
  const tag = Math.random().toString(36).slice(2, 10);
  return { name, email: `${name.toLowerCase()}-${tag}@example.test`, password: "a long enough password" };
}

export async function signUp(page: Page, who: Person, from = "/signup"): Promise<void> {
  await visit(page, url(from));
  await page.getByLabel("Name").fill(who.name);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign up" }).click();
}

export async function signIn(page: Page, who: Pick<Person, "email" | "password">): Promise<void> {
  await visit(page, url("/signin"));
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}
