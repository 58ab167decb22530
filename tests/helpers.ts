// Fixtures: each test makes its own workspace and keys (nothing shared but the server).
import OpenAI from "openai";
import { expect, inject } from "vitest";
import { createWorkspace } from "../server/onboarding/create-workspace";

export const baseUrl = () => inject("baseUrl");

export function client(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${baseUrl()}/v1`, maxRetries: 0 });
}

export async function newWorkspace(credits = "10", name = "test workspace") {
  const { workspace, apiKey } = await createWorkspace({ name, credits, withKey: true });
  return { workspace, key: apiKey!.key, secret: apiKey!.secret, openai: client(apiKey!.secret) };
}

export async function raw(path: string, init: RequestInit & { key?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("authorization", `Bearer ${init.key}`);
  return fetch(`${baseUrl()}${path}`, { ...init, headers });
}

export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  for (;;) {
    const value = await fn();
    if (ok(value)) return { value, ms: Date.now() - start };
    if (Date.now() - start > timeoutMs) return { value, ms: Date.now() - start };
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Awaits an SDK call that must fail: its status, `param` and (when given) `code`; returns the error. */
export async function expectApiError(p: Promise<unknown>, status: number, param: string | null, code?: string) {
  const err = (await p.then(
    () => null,
    (e: unknown) => e,
  )) as InstanceType<typeof OpenAI.APIError> | null;
  expect(err, "the call should have failed").toBeInstanceOf(OpenAI.APIError);
  expect(err!.status).toBe(status);
  expect((err!.error as { param: string | null }).param).toBe(param);
  if (code) expect(err!.code).toBe(code);
  return err!;
}
