// For tests of the built-in node alone: each test file starts its own node on a free port and
// talks to it with the official SDK. `node` and `openai` are live bindings, set in beforeAll.
import OpenAI from "openai";
import { afterAll, beforeAll } from "vitest";
import { startLocalNode, type RunningNode } from "../local-node/listen";

export let node: RunningNode;
export let openai: OpenAI;

export function useLocalNode(): void {
  beforeAll(async () => {
    node = await startLocalNode();
    openai = new OpenAI({ apiKey: "x", baseURL: `${node.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => node?.close());
}

/** The error a call failed with (fails the test when it did not fail). */
export async function apiError(p: Promise<unknown>): Promise<{ status?: number; code?: string | null; param?: string | null }> {
  try {
    await p;
  } catch (err) {
    return err as { status?: number; code?: string | null; param?: string | null };
  }
  throw new Error("expected an error");
}
