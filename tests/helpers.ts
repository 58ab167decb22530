// Fixtures: each test makes its own workspace and keys (nothing shared but the server).
import OpenAI from "openai";
import { inject } from "vitest";
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
