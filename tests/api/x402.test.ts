// x402: a client with a wallet and no account pays per call with the official x402 client
// (@x402/fetch, the exact and upto EVM schemes, a viem account) on a local chain. 402 with what a
// call accepts; paid calls served and settled for what they cost (chat, a stream, embeddings, an
// image, a video job); the chain's balances match the usage events exactly; every bad payment is
// refused with the x402 reason and nothing served or charged, a replay also across two instances;
// a facilitator that cannot be reached is a 503.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { authorizationTypes } from "@x402/evm";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addGuardrail, attachGuardrail, removeGuardrail } from "../../server/guardrails/guardrail-store";
import { db } from "../../server/infra/db/client";
import { X402_WORKSPACE_ID } from "../../server/kernel/x402-workspace";
import { freePort } from "../../server/infra/net/free-port";
import { money } from "../../server/kernel/money";
import { startGatewayInstance, type GatewayInstance } from "../instances";
import { newWorkspace, until } from "../helpers";
import { createJob, waitForJob } from "../helpers-video";
import { sseFrames } from "../sse-frames";
import { accountOf, payingFetch, startPaidChain, tokenBalance, usageOfPayer, usd, x402ClientFor, type PaidChain } from "../x402-fixtures";

const CHAT = "local-chat-sim";
const EMBED = "local-embed-ngram";
const IMAGE = "local-image";
const ask = (text: string) => [{ role: "user" as const, content: text }];

let paid: PaidChain;
let a: GatewayInstance;
let b: GatewayInstance;

beforeAll(async () => {
  paid = await startPaidChain();
  // VIDEO_WORKERS=1 on one instance: it renders (and settles) the x402 video job.
  [a, b] = await Promise.all([startGatewayInstance({ env: { ...paid.env, VIDEO_WORKERS: "1", JOB_MONITOR_INTERVAL_SECONDS: "1" } }), startGatewayInstance({ env: paid.env })]);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await paid?.anvil.stop();
});

const payer = () => accountOf(paid.chain.payerPrivateKey);

/** The openai SDK paying with x402: the placeholder key `x402` and the official paying fetch. */
const sdk = (url = a.url) => new OpenAI({ apiKey: "x402", baseURL: `${url}/v1`, fetch: payingFetch(payer()), maxRetries: 0 });

const chatBody = (text: string, extra: Record<string, unknown> = {}) => JSON.stringify({ model: CHAT, messages: ask(text), max_tokens: 16, ...extra });

async function unpaid(url: string, path: string, body: string): Promise<{ res: Response; required: PaymentRequired; error: { code: string; type: string; message: string } }> {
  const res = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  return { res, required, error: ((await res.json()) as { error: { code: string; type: string; message: string } }).error };
}

/** A payment signed by `key` for what the call's 402 accepts, with `tweak` applied to the requirements before signing. */
async function signFor(path: string, body: string, tweak: (r: PaymentRequired["accepts"][number]) => PaymentRequired["accepts"][number] = (r) => r, key = paid.chain.payerPrivateKey) {
  const { required } = await unpaid(a.url, path, body);
  const accepts = required.accepts.map(tweak);
  return x402ClientFor(accountOf(key)).createPaymentPayload({ ...required, accepts });
}

/** An EIP-3009 authorization for what the call accepts, valid only from ten minutes from now, signed by hand. */
async function notYetValid(path: string, body: string) {
  const { required } = await unpaid(a.url, path, body);
  const req = required.accepts[0]!;
  const now = Math.floor(Date.now() / 1000);
  const authorization = { from: payer().address, to: req.payTo, value: req.amount, validAfter: String(now + 600), validBefore: String(now + 900), nonce: `0x${randomBytes(32).toString("hex")}` };
  const signature = await payer().signTypedData({
    domain: { name: req.extra.name as string, version: req.extra.version as string, chainId: paid.chain.chainId, verifyingContract: req.asset as `0x${string}` },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: { ...authorization, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore), to: req.payTo as `0x${string}`, nonce: authorization.nonce as `0x${string}` },
  });
  return { x402Version: 2, resource: required.resource, accepted: req, payload: { authorization, signature } };
}

async function payWith(url: string, path: string, body: string, payload: unknown): Promise<Response> {
  return fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json", "payment-signature": encodePaymentSignatureHeader(payload as never) }, body });
}

describe("402 with requirements", () => {
  it("answers a metered call without credential 402: the upto scheme (Permit2) for its maximum, in the OpenAI error shape", async () => {
    const { res, required, error } = await unpaid(a.url, "/v1/chat/completions", chatBody("hello"));
    expect(res.status).toBe(402);
    expect(error).toMatchObject({ code: "payment_required", type: "insufficient_quota" });
    expect(required.x402Version).toBe(2);
    expect(required.resource.url).toBe(`${a.url}/v1/chat/completions`);
    expect(required.accepts).toHaveLength(1);
    const [req] = required.accepts;
    expect(req).toMatchObject({ scheme: "upto", network: paid.chain.network, payTo: paid.chain.payTo, extra: { assetTransferMethod: "permit2" } });
    expect(req!.asset.toLowerCase()).toBe(paid.chain.asset.toLowerCase());
    expect(BigInt(req!.amount)).toBeGreaterThan(0n);
  });

  it("asks the exact scheme (EIP-3009) for a price known up front, converted from the catalog's decimals exactly", async () => {
    const { res, required } = await unpaid(a.url, "/v1/images/generations", JSON.stringify({ model: IMAGE, prompt: "a square", n: 2, size: "1024x1024" }));
    expect(res.status).toBe(402);
    const [req] = required.accepts;
    expect(req).toMatchObject({ scheme: "exact", extra: { name: paid.chain.assetName, version: paid.chain.assetVersion } });
    // 2 images: the 402 asks for exactly twice the price of one (rounded up to the token's unit).
    const one = await unpaid(a.url, "/v1/images/generations", JSON.stringify({ model: IMAGE, prompt: "a square", n: 1, size: "1024x1024" }));
    expect(BigInt(req!.amount)).toBe(2n * BigInt(one.required.accepts[0]!.amount));
  });

  it("still answers 401 to a call that cannot be paid with x402, and 400 to an invalid one before asking for money", async () => {
    const list = await fetch(`${a.url}/v1/videos`);
    expect(list.status).toBe(401);
    const bad = await fetch(`${a.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: CHAT }) });
    expect(bad.status).toBe(400);
    const models = await fetch(`${a.url}/v1/models`);
    expect(models.status).toBe(200);
  });
});

describe("pay and serve", () => {
  it("serves chat, a stream, embeddings and an image paid by the official client; the chain's balances move by exactly the usage events", async () => {
    const who = payer().address;
    const [payerBefore, payToBefore] = await Promise.all([tokenBalance(paid.chain, who), tokenBalance(paid.chain, paid.chain.payTo)]);
    const usageBefore = await usageOfPayer(who);

    const openai = sdk();
    const chat = await openai.chat.completions.create({ model: CHAT, messages: ask("say something"), max_tokens: 12 }).withResponse();
    expect(chat.data.choices[0]!.message.content).toBeTruthy();
    const settlement = decodePaymentResponseHeader(chat.response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: paid.chain.network });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(settlement.payer!.toLowerCase()).toBe(who.toLowerCase());

    const embedded = await openai.embeddings.create({ model: EMBED, input: ["a paid embedding"] }).withResponse();
    expect(embedded.data.data).toHaveLength(1);
    expect(embedded.response.headers.get("payment-response")).toBeTruthy();

    const image = await openai.images.generate({ model: IMAGE, prompt: "a paid square", n: 1, size: "1024x1024" }).withResponse();
    expect(image.data.data).toHaveLength(1);
    const imageSettlement = decodePaymentResponseHeader(image.response.headers.get("payment-response")!);
    expect(imageSettlement.success).toBe(true);

    // A stream: the settlement comes after [DONE], in a `payment_response` event.
    const res = await payingFetch(payer())(`${a.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: chatBody("stream please", { stream: true }) });
    expect(res.status).toBe(200);
    const frames: string[] = [];
    for await (const frame of sseFrames(res.body!)) frames.push(frame.raw);
    const done = frames.findIndex((f) => f.includes("data: [DONE]"));
    expect(done).toBeGreaterThan(0);
    const trailer = frames.slice(done + 1).find((f) => f.startsWith("event: payment_response"));
    expect(trailer, frames.join("\n")).toBeTruthy();
    const streamed = JSON.parse(trailer!.split("\n").find((l) => l.startsWith("data: "))!.slice(6)) as { success: boolean; transaction: string; amount: string };
    expect(streamed.success).toBe(true);
    expect(streamed.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    const [payerAfter, payToAfter] = await Promise.all([tokenBalance(paid.chain, who), tokenBalance(paid.chain, paid.chain.payTo)]);
    const usageAfter = await usageOfPayer(who);
    const newEvents = usageAfter.events.slice(usageBefore.events.length);
    expect(newEvents.map((e) => e.endpoint).sort()).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/embeddings", "/v1/images/generations"]);
    for (const e of newEvents) {
      expect(e.paymentScheme).toBe(e.endpoint === "/v1/images/generations" ? "exact" : "upto");
      expect(e.paymentTx).toMatch(/^0x[0-9a-f]{64}$/);
    }
    const charged = usageAfter.cost.minus(usageBefore.cost);
    expect(usd(payerBefore - payerAfter).toFixed()).toBe(charged.toFixed());
    expect(usd(payToAfter - payToBefore).toFixed()).toBe(charged.toFixed());
    expect(money(streamed.amount).gt(0)).toBe(true);

    // The request log has the paid calls with their payer and what they cost, the stream's too.
    const ids = [chat.response.headers.get("x-request-id")!, res.headers.get("x-request-id")!];
    const { value: rows } = await until(() => db.requestLog.findMany({ where: { id: { in: ids } } }), (r) => r.length === 2, 10_000);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ credential: "x402", status: 200, errorCode: null, route: "/v1/chat/completions" });
      expect(row.payer!.toLowerCase()).toBe(who.toLowerCase());
      const event = await db.usageEvent.findUniqueOrThrow({ where: { id: row.id } });
      expect(row.cost!.toString()).toBe(event.cost.toString());
    }
  });

  it("answers a repeated call from the response cache in the payer's own scope, settling the cache price (0): the chain does not move", async () => {
    const who = payer().address;
    const openai = sdk();
    const body = { model: CHAT, messages: ask("cached for my wallet"), max_tokens: 12, temperature: 0 };
    const miss = await openai.chat.completions.create(body, { headers: { "x-gateway-cache": "use" } }).withResponse();
    expect(miss.response.headers.get("x-gateway-cache")).toBe("miss");
    const before = await tokenBalance(paid.chain, who);
    const hit = await openai.chat.completions.create(body, { headers: { "x-gateway-cache": "use" } }).withResponse();
    expect(hit.response.headers.get("x-gateway-cache")).toBe("hit");
    expect(hit.data).toEqual(miss.data);
    expect(await tokenBalance(paid.chain, who)).toBe(before);
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: hit.response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ cacheHit: true, payer: who.toLowerCase(), paymentTx: null });
    expect(event.cost.toString()).toBe("0");
    // The entry is in the payer's own scope: another wallet's identical call does not look there.
    const entries = await db.responseCacheEntry.findMany({ where: { scope: `payer:${who.toLowerCase()}` } });
    expect(entries).toHaveLength(1);
  });

  it("settles payments sent at once to two instances sharing the facilitator's wallet: every one served, settled and recorded", async () => {
    const who = payer().address;
    const before = await tokenBalance(paid.chain, who);
    const usageBefore = await usageOfPayer(who);
    const pay = payingFetch(payer());
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        pay(`${(i % 2 ? a : b).url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: chatBody(`together ${i}`) }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    const txs = answers.map((r) => decodePaymentResponseHeader(r.headers.get("payment-response")!).transaction);
    expect(new Set(txs).size).toBe(8);
    const usageAfter = await usageOfPayer(who);
    expect(usageAfter.events.length - usageBefore.events.length).toBe(8);
    expect(usd(before - (await tokenBalance(paid.chain, who))).toFixed()).toBe(usageAfter.cost.minus(usageBefore.cost).toFixed());
  });

  it("creates a video job paid with exact, and settles it when the job completes", async () => {
    const who = payer().address;
    const payerBefore = await tokenBalance(paid.chain, who);
    const res = await payingFetch(payer())(`${a.url}/v1/videos`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "local-video", prompt: "a paid fox", seconds: 1, size: "320x180" }) });
    expect(res.status).toBe(200);
    const job = (await res.json()) as { id: string; status: string };
    expect(job.status).toBe("queued");
    const payment = await db.x402Payment.findUniqueOrThrow({ where: { videoJobId: job.id } });
    expect(payment).toMatchObject({ scheme: "exact", status: "verified" });
    // The payer reads its job by id without a credential, until it completes.
    let status = job.status;
    const deadline = Date.now() + 90_000;
    while (!["completed", "failed"].includes(status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      status = ((await (await fetch(`${a.url}/v1/videos/${job.id}`)).json()) as { status: string }).status;
    }
    expect(status).toBe("completed");
    let settled = payment;
    while (settled.status !== "settled" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      settled = await db.x402Payment.findUniqueOrThrow({ where: { id: payment.id } });
    }
    expect(settled.status).toBe("settled");
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: job.id } });
    expect(event).toMatchObject({ payer: who.toLowerCase(), paymentScheme: "exact", paymentTx: settled.txHash, endpoint: "/v1/videos" });
    const payerAfter = await tokenBalance(paid.chain, who);
    expect(usd(payerBefore - payerAfter).toFixed()).toBe(event.cost.toFixed());
    expect((payerBefore - payerAfter).toString()).toBe(payment.maxAmount.toFixed(0));
  }, 120_000);
});

describe("more of what x402 pays for", () => {
  it("pays speech with exact (the audio is sent whole, with PAYMENT-RESPONSE) and ends a responses stream with its payment_response event", async () => {
    const openai = sdk();
    const speech = await openai.audio.speech.create({ model: "local-tts", voice: "alloy", input: "a paid sentence" }).withResponse();
    expect((await speech.data.arrayBuffer()).byteLength).toBeGreaterThan(100);
    expect(decodePaymentResponseHeader(speech.response.headers.get("payment-response")!)).toMatchObject({ success: true });

    const res = await payingFetch(payer())(`${a.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: CHAT, input: "a paid streamed response", max_output_tokens: 16, stream: true }),
    });
    expect(res.status).toBe(200);
    const events: string[] = [];
    for await (const frame of sseFrames(res.body!)) events.push(frame.raw.split("\n")[0]!);
    // Its terminal event (incomplete: max_output_tokens ran out), then the settlement.
    expect(events.at(-2)).toMatch(/^event: response\.(completed|incomplete)$/);
    expect(events.at(-1)).toBe("event: payment_response");
    // A payer cannot continue a stored response (it has none) nor run one in the background.
    const bg = await payingFetch(payer())(`${a.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: CHAT, input: "x", background: true }) });
    expect(bg.status).toBe(400);
    expect(((await bg.json()) as { error: { param: string } }).error.param).toBe("background");
  });

  it("verifies and settles through a remote facilitator given by URL", async () => {
    // The official facilitator (the same schemes over the same chain), served over HTTP as
    // /verify, /settle and /supported, as a hosted facilitator would be.
    const { x402Facilitator } = await import("@x402/core/facilitator");
    const { toFacilitatorEvmSigner } = await import("@x402/evm");
    const { ExactEvmScheme } = await import("@x402/evm/exact/facilitator");
    const { UptoEvmScheme } = await import("@x402/evm/upto/facilitator");
    const viem = await import("viem");
    const account = accountOf(paid.chain.facilitatorPrivateKey);
    const chain = viem.defineChain({ id: paid.chain.chainId, name: "local", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [paid.chain.rpcUrl] } } });
    const wallet = viem.createWalletClient({ account: accountOf(paid.chain.facilitatorPrivateKey), chain, transport: viem.http(paid.chain.rpcUrl), pollingInterval: 50 }).extend(viem.publicActions);
    const signer = toFacilitatorEvmSigner(Object.assign(wallet, { address: account.address }) as never);
    const facilitator = new x402Facilitator().register(paid.chain.network, new ExactEvmScheme(signer)).register(paid.chain.network, new UptoEvmScheme(signer));
    const calls: string[] = [];
    const server = createServer(async (req, res) => {
      calls.push(req.url!);
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
      const result =
        req.url === "/supported" ? facilitator.getSupported()
        : req.url === "/verify" ? await facilitator.verify(body.paymentPayload, body.paymentRequirements)
        : await facilitator.settle(body.paymentPayload, body.paymentRequirements);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const remote = await startGatewayInstance({ env: { ...paid.env, X402_FACILITATOR_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } });
    try {
      const who = payer().address;
      const before = await tokenBalance(paid.chain, who);
      const res = await payingFetch(payer())(`${remote.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: chatBody("remote") });
      expect(res.status).toBe(200);
      const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
      expect(settlement.success).toBe(true);
      expect(calls).toEqual(expect.arrayContaining(["/supported", "/verify", "/settle"]));
      const event = await db.usageEvent.findFirstOrThrow({ where: { paymentTx: settlement.transaction } });
      expect(usd(before - (await tokenBalance(paid.chain, who))).toFixed()).toBe(event.cost.toFixed());
    } finally {
      await remote.stop();
      server.close();
    }
  }, 60_000);
});

describe("guardrails", () => {
  it("the x402 workspace's guardrails apply to payers: a blocked input is 400 before anything is asked or paid, an allowed one is served", async () => {
    await addGuardrail(X402_WORKSPACE_ID, { name: "x402-deny", type: "deny", stage: "input", action: "block", words: ["contraband"] });
    await attachGuardrail(X402_WORKSPACE_ID, "x402-deny", {});
    try {
      const before = await tokenBalance(paid.chain, payer().address);
      // The instances may hold the workspace's rules from earlier calls: they learn of the change by notification.
      const { value: err } = await until(() => sdk().chat.completions.create({ model: CHAT, messages: ask("some contraband please"), max_tokens: 8 }).then(() => null, (e: { status: number; code: string }) => e), (e) => e !== null, 2000);
      expect(err).toMatchObject({ status: 400, code: "guardrail_blocked" });
      const bare = await fetch(`${b.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: chatBody("contraband") });
      expect(bare.status).toBe(400);
      expect(await tokenBalance(paid.chain, payer().address)).toBe(before);
      const ok = await sdk().chat.completions.create({ model: CHAT, messages: ask("something allowed"), max_tokens: 8 });
      expect(ok.choices[0]!.message.content).toBeTruthy();
    } finally {
      await removeGuardrail(X402_WORKSPACE_ID, "x402-deny");
    }
  });
});

describe("bad payments: 402 with the x402 reason, nothing served, nothing charged", () => {
  async function refused(res: Response) {
    expect(res.status).toBe(402);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("payment_required");
    const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    expect(required.error, body.error.message).toBeTruthy();
    return required.error!;
  }

  it("refuses a bad signature, a wrong network, a wrong asset, an amount below the price, an expired authorization and a payer without funds", async () => {
    const who = payer().address;
    const before = await tokenBalance(paid.chain, who);
    const eventsBefore = (await usageOfPayer(who)).events.length;
    const path = "/v1/images/generations";
    const body = JSON.stringify({ model: IMAGE, prompt: "refused", n: 1, size: "1024x1024" });

    const good = await signFor(path, body);
    const auth = (good.payload as { signature: string }).signature;
    const tampered = { ...good, payload: { ...good.payload, signature: `${auth.slice(0, -4)}${auth.slice(-4) === "1b1b" ? "1c1c" : "1b1b"}` } };
    const reasons: Record<string, string> = {};
    reasons.signature = await refused(await payWith(a.url, path, body, tampered));
    reasons.network = await refused(await payWith(a.url, path, body, await signFor(path, body, (r) => ({ ...r, network: "eip155:8453" }))));
    reasons.asset = await refused(await payWith(a.url, path, body, await signFor(path, body, (r) => ({ ...r, asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }))));
    reasons.amount = await refused(await payWith(a.url, path, body, await signFor(path, body, (r) => ({ ...r, amount: (BigInt(r.amount) - 1n).toString() }))));
    reasons.expired = await refused(await payWith(a.url, path, body, await signFor(path, body, (r) => ({ ...r, maxTimeoutSeconds: 1 }))));
    // Anvil's account 5 has ether but none of the token.
    const broke = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";
    reasons.funds = await refused(await payWith(a.url, path, body, await signFor(path, body, (r) => r, broke)));
    reasons.notYetValid = await refused(await payWith(a.url, path, body, await notYetValid(path, body)));
    reasons.payTo = await refused(await payWith(a.url, path, body, await signFor(path, body, (r) => ({ ...r, payTo: "0x90F79bf6EB2c4f870365E785982E1f101E93b906" }))));
    expect(reasons).toEqual({
      signature: "invalid_exact_evm_signature",
      network: "invalid_exact_evm_network_mismatch",
      asset: "asset_mismatch",
      amount: "invalid_exact_evm_payload_authorization_value_mismatch",
      expired: "invalid_exact_evm_payload_authorization_valid_before",
      funds: "invalid_exact_evm_insufficient_balance",
      notYetValid: "invalid_exact_evm_payload_authorization_valid_after",
      payTo: "pay_to_mismatch",
    });

    expect(await tokenBalance(paid.chain, who)).toBe(before);
    expect((await usageOfPayer(who)).events.length).toBe(eventsBefore);
  });

  it("settles nothing for a call that fails: its payment is released, the balances do not move", async () => {
    const who = payer().address;
    const before = await tokenBalance(paid.chain, who);
    const eventsBefore = (await usageOfPayer(who)).events.length;
    const pay = payingFetch(payer());
    const failed = await pay(`${a.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: chatBody("[sim:fail] please") });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    // A stream that breaks off after its first bytes: an error frame, nothing settled.
    const broken = await pay(`${a.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: chatBody("[sim:fail-mid-stream] please", { stream: true }) });
    expect(broken.status).toBe(200);
    const frames: string[] = [];
    for await (const frame of sseFrames(broken.body!)) frames.push(frame.raw);
    expect(frames.some((f) => f.includes('"error"'))).toBe(true);
    expect(frames.some((f) => f.startsWith("event: payment_response"))).toBe(false);
    // A video job whose render fails: released when the job fails.
    const job = await pay(`${a.url}/v1/videos`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "local-video", prompt: "[sim:fail] fox", seconds: 1, size: "320x180" }) });
    expect(job.status).toBe(200);
    const { id } = (await job.json()) as { id: string };
    const deadline = Date.now() + 60_000;
    let payment = await db.x402Payment.findUniqueOrThrow({ where: { videoJobId: id } });
    while (payment.status === "verified" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      payment = await db.x402Payment.findUniqueOrThrow({ where: { videoJobId: id } });
    }
    expect(payment.status).toBe("released");
    const released = await db.x402Payment.findMany({ where: { payer: who.toLowerCase(), status: "released", endpoint: "/v1/chat/completions" } });
    expect(released.length).toBeGreaterThanOrEqual(2);
    expect(await tokenBalance(paid.chain, who)).toBe(before);
    expect((await usageOfPayer(who)).events.length).toBe(eventsBefore);
  }, 90_000);

  it("serves a payment once: a replay is refused (nonce_already_used), also when sent to two instances at once", async () => {
    const path = "/v1/chat/completions";
    const body = chatBody("once");
    const payload = await signFor(path, body);
    const first = await payWith(a.url, path, body, payload);
    expect(first.status).toBe(200);
    const again = await payWith(b.url, path, body, payload);
    expect(again.status).toBe(402);
    expect(decodePaymentRequiredHeader(again.headers.get("payment-required")!).error).toBe("nonce_already_used");

    const racer = await signFor(path, body);
    const answers = await Promise.all([payWith(a.url, path, body, racer), payWith(b.url, path, body, racer)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 402]);
    const payments = await db.x402Payment.findMany({ where: { payer: payer().address.toLowerCase(), nonce: String((racer.payload as { permit2Authorization: { nonce: string } }).permit2Authorization.nonce).toLowerCase() } });
    expect(payments).toHaveLength(1);
    expect(payments[0]!.status).toBe("settled");
  });

  it("answers 503 when the facilitator cannot be reached, and charges nothing", async () => {
    const port = await freePort();
    const down = await startGatewayInstance({ env: { ...paid.env, X402_FACILITATOR_URL: `http://127.0.0.1:${port}` } });
    try {
      const res = await fetch(`${down.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: chatBody("down") });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("facilitator_unavailable");
    } finally {
      await down.stop();
    }
  }, 60_000);
});

describe("reads with no credential reveal nothing of a workspace", () => {
  it("a workspace's video job, its content, its stored response and its job list answer an anonymous caller 404 or 401, never the data", async () => {
    const ws = await newWorkspace("5");
    const owner = new OpenAI({ apiKey: ws.secret, baseURL: `${a.url}/v1`, maxRetries: 0 });
    const created = await createJob(owner, { model: "local-video", prompt: "a workspace's own fox", seconds: 1, size: "320x180" });
    const { job } = await waitForJob(owner, created.id, 90_000);
    expect(job.status).toBe("completed");
    // The owner reads it; a payer with no account (no credential, the placeholder key, or a
    // payment header) gets the 404 another workspace would get, for the job and its content.
    expect((await fetch(`${a.url}/v1/videos/${job.id}`, { headers: { authorization: `Bearer ${ws.secret}` } })).status).toBe(200);
    const anonymous: Record<string, string>[] = [{}, { authorization: "Bearer x402" }, { "payment-signature": "e30=" }];
    for (const headers of anonymous) {
      for (const path of [`/v1/videos/${job.id}`, `/v1/videos/${job.id}/content`]) {
        const res = await fetch(`${a.url}${path}`, { headers });
        expect(res.status, `${path} with ${JSON.stringify(headers)}`).toBe(404);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("video_not_found");
        expect(JSON.stringify(body)).not.toContain("fox");
      }
    }
    // Reads x402 does not open (a stored response, the list of jobs) need the workspace's credential.
    const response = await owner.responses.create({ model: CHAT, input: "a stored answer", store: true, max_output_tokens: 16 });
    for (const path of [`/v1/responses/${response.id}`, `/v1/responses/${response.id}/input_items`, "/v1/videos"]) {
      const res = await fetch(`${a.url}${path}`);
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    }
  }, 120_000);
});
