import { expect, test } from "@playwright/test";
import { screenshot, url, watchConsole } from "./helpers";

test("the API reference at /docs renders the gateway's OpenAPI document, from the gateway alone", async ({ page }, info) => {
  const console = watchConsole(page);
  // Everything the page loads must come from the gateway itself (no CDN, fonts or telemetry).
  const elsewhere: string[] = [];
  page.on("request", (req) => {
    const { origin, protocol } = new URL(req.url());
    if (origin !== new URL(url("/")).origin && protocol !== "data:" && protocol !== "blob:") elsewhere.push(req.url());
  });
  const documentLoaded = page.waitForResponse((res) => new URL(res.url()).pathname === "/openapi.json" && res.status() === 200);

  await page.goto(url("/docs"));
  await documentLoaded;
  await expect(page).toHaveTitle(/API reference/);
  await expect(page.getByRole("heading", { name: "Model gateway API", level: 1 })).toBeVisible();
  // The chat completions operation is listed (in the sidebar and as a section of the page).
  await expect(page.getByText("Create a chat completion", { exact: false }).first()).toBeVisible();
  await expect(page.getByText("/v1/chat/completions").first()).toBeAttached();
  await screenshot(page, "api-docs", info);

  expect(elsewhere, "requests to other hosts").toEqual([]);
  console.expectNone();
});
