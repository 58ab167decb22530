// A stand-in Vertex AI node that is also the OAuth token endpoint its test service accounts name
// in `token_uri`. The token endpoint checks the JWT bearer grant as Google's does: the assertion's
// RS256 signature against the service account's public key, its issuer (the client email), its
// audience (the token_uri) and its scope, then issues a token with `expires_in`. Vertex's methods
// (publisher models under the project and location) answer only that bearer token: Gemini's
// generateContent and streamGenerateContent?alt=sse with the Gemini stand-in's
// recorded sequences, `:predict` for text embeddings, Claude's rawPredict / streamRawPredict with
// the Anthropic stand-in's fixtures and event sequences, countTokens (the health check). It fails
// on cue (quota, permission, a token refused, a prompt too long) and records every request and every token request.
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { MessageCreateParamsBase } from "@anthropic-ai/sdk/resources/messages";
import { jwtVerify } from "jose";
import { freePort } from "../../server/infra/net/free-port";
import type { GeminiRequest } from "../../server/providers/gemini/types";
import { FIXTURES, sse, streamEvents, type Fixture } from "./anthropic-upstream";
import { fakeVector, recordedAnswer, recordedEvents } from "./gemini-upstream";

export type VertexMode = "ok" | "exhausted" | "denied" | "unauthenticated" | "overflow";

export type RecordedRequest = { method: string; path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> | null };

/** A service account key file, as Google issues it (its private key a fresh RSA key's). */
export type ServiceAccountKey = { type: "service_account"; project_id: string; private_key_id: string; private_key: string; client_email: string; client_id: string; token_uri: string };

export type VertexFake = {
  url: string;
  project: string;
  location: string;
  mode: VertexMode;
  /** Claude's next answers. */
  fixture: Fixture;
  requests: RecordedRequest[];
  /** countTokens calls (the gateway's health checks). */
  countTokens: number;
  last: RecordedRequest | null;
  /** Token requests: issued or refused. */
  tokenRequests: { email: string | null; issued: boolean; error?: string }[];
  /** A new service account whose public key this endpoint knows (`trusted: false`: one it does not). */
  serviceAccount(name: string, trusted?: boolean): ServiceAccountKey;
  close: () => Promise<void>;
};

export const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
export const ANTHROPIC_VERSION = "vertex-2023-10-16";
/** The RetryInfo delay a RESOURCE_EXHAUSTED answer carries. */
export const RETRY_DELAY_SECONDS = 7;
/** Vertex counts this many tokens per embedded text (per character, here). */
export const tokenCount = (text: string) => text.length;

const STATUS_NAMES: Record<number, string> = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED" };

const METHOD = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:?]+):(\w+)(?:\?(.*))?$/;

type Send = { json(status: number, body: unknown): void; google(status: number, message: string, details?: unknown[]): void };

function sender(res: ServerResponse): Send {
  const json = (status: number, body: unknown) => void res.writeHead(status, { "content-type": "application/json; charset=UTF-8" }).end(JSON.stringify(body));
  return { json, google: (status, message, details) => json(status, { error: { code: status, message, status: STATUS_NAMES[status] ?? "INTERNAL", ...(details && { details }) } }) };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

export async function startVertexUpstream(project = "vertex-wire-test", location = "europe-west4"): Promise<VertexFake> {
  const keys = new Map<string, KeyObject>();
  const tokens = new Set<string>();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const tokenUri = `${url}/token`;
  const fake: VertexFake = {
    url,
    project,
    location,
    mode: "ok",
    fixture: FIXTURES.text,
    requests: [],
    countTokens: 0,
    last: null,
    tokenRequests: [],
    serviceAccount(name, trusted = true) {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const email = `${name}@${project}.iam.gserviceaccount.com`;
      if (trusted) keys.set(email, publicKey);
      const pem = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
      return { type: "service_account", project_id: project, private_key_id: `key-${name}`, private_key: pem, client_email: email, client_id: "1234567890", token_uri: tokenUri };
    },
    close: async () => undefined,
  };

  /** The JWT bearer grant: a token for an assertion signed by a known service account, for this endpoint, with the scope. */
  async function token(body: string, send: Send): Promise<void> {
    const form = new URLSearchParams(body);
    const refuse = (email: string | null, description: string) => {
      fake.tokenRequests.push({ email, issued: false, error: description });
      send.json(400, { error: "invalid_grant", error_description: description });
    };
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return refuse(null, "Invalid grant_type.");
    const assertion = form.get("assertion") ?? "";
    const unverified = JSON.parse(Buffer.from(assertion.split(".")[1] ?? "", "base64url").toString() || "{}") as { iss?: string };
    const email = unverified.iss ?? null;
    const key = email ? keys.get(email) : undefined;
    if (!key) return refuse(email, "Invalid JWT Signature.");
    try {
      const { payload } = await jwtVerify(assertion, key, { issuer: email!, audience: tokenUri, algorithms: ["RS256"], requiredClaims: ["iat", "exp"] });
      if (!String(payload.scope ?? "").split(" ").includes(SCOPE)) return refuse(email, "Invalid OAuth scope or ID token audience provided.");
    } catch (err) {
      return refuse(email, `Invalid JWT: ${(err as Error).message}`);
    }
    const accessToken = `ya29.test-${tokens.size + 1}-${email}`;
    tokens.add(accessToken);
    fake.tokenRequests.push({ email, issued: true });
    send.json(200, { access_token: accessToken, expires_in: 3599, token_type: "Bearer" });
  }

  function google(model: string, verb: string, query: string | undefined, body: Record<string, unknown>, res: ServerResponse, send: Send): void {
    if (verb === "predict") {
      const { instances, parameters } = body as { instances: { content: string }[]; parameters?: { outputDimensionality?: number } };
      const predictions = instances.map(({ content }) => ({ embeddings: { statistics: { truncated: false, token_count: tokenCount(content) }, values: fakeVector(content, parameters?.outputDimensionality) } }));
      return send.json(200, { predictions, metadata: { billableCharacterCount: instances.reduce((n, i) => n + i.content.length, 0) } });
    }
    const request = body as GeminiRequest;
    if (verb === "generateContent") return send.json(200, recordedAnswer(request, model));
    if (verb !== "streamGenerateContent" || query !== "alt=sse") return send.google(400, `This test node does not serve ${verb}?${query ?? ""}.`);
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const event of recordedEvents(request, model)) res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
    res.end();
  }

  function anthropic(model: string, verb: string, body: Record<string, unknown>, res: ServerResponse, send: Send): void {
    const refuse = (message: string) => send.json(400, { type: "error", error: { type: "invalid_request_error", message } });
    if (body.anthropic_version !== ANTHROPIC_VERSION) return refuse(`anthropic_version: must be ${ANTHROPIC_VERSION}`);
    if ("model" in body) return refuse("model: Extra inputs are not permitted");
    const stream = verb === "streamRawPredict";
    if (stream !== (body.stream === true)) return refuse(`${verb} takes stream: ${stream}`);
    const answer = fake.fixture({ ...(body as unknown as MessageCreateParamsBase), model });
    if (!stream) return send.json(200, answer);
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    for (const event of streamEvents(answer)) res.write(sse(event));
    res.end();
  }

  function failure(publisher: string, send: Send): boolean {
    switch (fake.mode) {
      case "exhausted":
        send.google(429, "Resource exhausted. Please try again later.", [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${RETRY_DELAY_SECONDS}s` }]);
        return true;
      case "denied":
        send.google(403, `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}' (or it may not exist).`);
        return true;
      case "unauthenticated":
        send.google(401, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
        return true;
      case "overflow":
        if (publisher === "anthropic") send.json(400, { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 215000 tokens > 200000 maximum" } });
        else send.google(400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).");
        return true;
      default:
        return false;
    }
  }

  const server: Server = createServer(async (req, res) => {
    const send = sender(res);
    const text = await readBody(req);
    const path = req.url ?? "";
    if (req.method === "POST" && path === "/token") return token(text, send);
    const auth = req.headers.authorization ?? "";
    if (!auth.startsWith("Bearer ") || !tokens.has(auth.slice(7))) return send.google(401, "Request is missing required authentication credential. Expected OAuth 2 access token.");
    const method = METHOD.exec(path);
    if (req.method !== "POST" || !method) return send.google(404, `Not found: ${req.method} ${path}`);
    const [, inProject, inLocation, publisher, model, verb, query] = method as unknown as string[];
    if (inProject !== project || inLocation !== location) return send.google(403, `Permission denied on resource project ${inProject}.`);
    // Health checks' countTokens calls are counted apart, so `last` is always a test's own call.
    if (verb === "countTokens") {
      fake.countTokens += 1;
      return send.json(200, { totalTokens: 1, totalBillableCharacters: 4 });
    }
    const recorded: RecordedRequest = { method: req.method, path, headers: req.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
    fake.requests.push(recorded);
    fake.last = recorded;
    if (failure(publisher!, send)) return;
    if (publisher === "anthropic") return anthropic(model!, verb!, recorded.body ?? {}, res, send);
    return google(model!, verb!, query, recorded.body ?? {}, res, send);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
