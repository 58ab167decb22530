// The Vertex stand-in (tests/fakes/vertex-upstream.ts) is what Google is to the official clients:
// google-auth-library exchanges a service account's signed JWT at its token endpoint (a key it
// does not know is refused as Google refuses it), and @google/genai, in Vertex mode, with that
// token, reads its generateContent answer, its server-sent stream and its embeddings.
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAccountClient } from "../../server/providers/vertex/token";
import { fakeVector, TEXT, USAGE } from "../fakes/gemini-upstream";
import { startVertexUpstream, tokenCount, type VertexFake } from "../fakes/vertex-upstream";

let fake: VertexFake;

beforeAll(async () => {
  fake = await startVertexUpstream();
});
afterAll(() => fake.close());

const genai = async (name: string) =>
  new GoogleGenAI({
    vertexai: true,
    project: fake.project,
    location: fake.location,
    httpOptions: { baseUrl: fake.url, apiVersion: "v1" },
    googleAuthOptions: { authClient: (await serviceAccountClient(fake.serviceAccount(name))) as never },
  });

describe("the Vertex stand-in, read by the official clients", () => {
  it("google-auth-library gets a token for a known service account's signed JWT, once, and is refused one for an unknown key", async () => {
    const client = await serviceAccountClient(fake.serviceAccount("token-check"));
    const { token } = await client.getAccessToken();
    expect(token).toMatch(/^ya29\.test-/);
    expect((await client.getAccessToken()).token).toBe(token);
    expect(fake.tokenRequests.filter((r) => r.email?.startsWith("token-check@"))).toEqual([{ email: `token-check@${fake.project}.iam.gserviceaccount.com`, issued: true }]);

    const stranger = await serviceAccountClient(fake.serviceAccount("stranger", false));
    await expect(stranger.getAccessToken()).rejects.toThrow(/invalid_grant: Invalid JWT Signature/);
  });

  it("@google/genai (vertexai) reads generateContent, its stream, and predict's embeddings", async () => {
    const ai = await genai("genai-check");
    const answer = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hello" });
    expect(fake.last!.path).toBe(`/v1/projects/${fake.project}/locations/${fake.location}/publishers/google/models/gemini-2.5-flash:generateContent`);
    expect(fake.last!.headers.authorization).toMatch(/^Bearer ya29\.test-/);
    expect(answer.text).toBe(TEXT.join(""));
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: USAGE.promptTokenCount, cachedContentTokenCount: USAGE.cachedContentTokenCount });

    let streamed = "";
    for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hello" })) streamed += chunk.text ?? "";
    expect(fake.last!.path).toMatch(/:streamGenerateContent\?alt=sse$/);
    expect(streamed).toBe(TEXT.join(""));

    const embedded = await ai.models.embedContent({ model: "text-embedding-005", contents: ["alpha", "beta"], config: { outputDimensionality: 4 } });
    expect(fake.last!.path).toMatch(/\/models\/text-embedding-005:predict$/);
    expect(embedded.embeddings!.map((e) => e.values)).toEqual([fakeVector("alpha", 4), fakeVector("beta", 4)]);
    expect(embedded.embeddings!.map((e) => e.statistics?.tokenCount)).toEqual([tokenCount("alpha"), tokenCount("beta")]);
  });

  it("a call without the issued token is refused with 401 UNAUTHENTICATED", async () => {
    const res = await fetch(`${fake.url}/v1/projects/${fake.project}/locations/${fake.location}/publishers/google/models/gemini-2.5-flash:generateContent`, {
      method: "POST",
      headers: { authorization: "Bearer ya29.forged", "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe("UNAUTHENTICATED");
  });
});
