// The bench's other servers, each in its own process: the instant mock upstream and Portkey's
// OSS gateway (@portkey-ai/gateway from npm) in front of it.
import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "../../server/infra/net/free-port";
import { projectRoot } from "../../server/infra/paths";
import { waitForHttp, type Child } from "../../scripts/lib/processes";
import { childEnv } from "./load";

function child(name: string, args: string[], env: Record<string, string> = {}): Child {
  const proc = spawn(process.execPath, args, { cwd: projectRoot, stdio: ["ignore", "ignore", "inherit"], env: childEnv(env) });
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { name, proc, exited };
}

export type Server = { child: Child; baseUrl: string };

export async function startMock(): Promise<Server> {
  const port = await freePort();
  const mock = child("mock upstream", ["--import", "tsx", path.join(projectRoot, "bench", "mock-upstream.ts")], { MOCK_PORT: String(port) });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/health`, mock);
  return { child: mock, baseUrl };
}

/** A bare node:http proxy in front of `upstream` (bench/bare-proxy.ts): the floor of any Node.js gateway here. */
export async function startBareProxy(upstream: string): Promise<Server> {
  const port = await freePort();
  const proxy = child("bare proxy", ["--import", "tsx", path.join(projectRoot, "bench", "bare-proxy.ts")], { PROXY_PORT: String(port), PROXY_UPSTREAM: upstream });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/health`, proxy);
  return { child: proxy, baseUrl };
}

export const PORTKEY_VERSION = "1.15.2";

/** Portkey's gateway, headless, with its own defaults (as `npx @portkey-ai/gateway` runs it). */
export async function startPortkey(): Promise<Server> {
  const port = await freePort();
  const script = path.join(projectRoot, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js");
  const portkey = child("portkey", [script, `--port=${port}`, "--headless"]);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/`, portkey);
  return { child: portkey, baseUrl };
}

/** The headers that make Portkey forward to an OpenAI-compatible upstream at `upstreamV1`. */
export function portkeyHeaders(upstreamV1: string): Record<string, string> {
  return { "x-portkey-provider": "openai", "x-portkey-custom-host": upstreamV1, authorization: "Bearer x" };
}
