// x402 on /mcp (x402's MCP transport): a caller with no credential lists the tools the x402
// workspace has, is asked to pay a priced tool in a tool result (isError, the PaymentRequired in
// structuredContent and as text), pays with the official x402 client's payload in
// `_meta["x402/payment"]`, gets its result with the settlement in `_meta["x402/payment-response"]`;
// the chain moves by exactly the usage event, a replayed payment is refused, and a free tool
// needs no payment.
import type { PaymentRequired } from "@x402/core/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliActor } from "../../server/audit/actor";
import { addServer, removeServer } from "../../server/mcp/registry/registry-store";
import { startGatewayInstance, type GatewayInstance } from "../instances";
import { startStandInMcpServer, type StandInMcpServer } from "../mcp-fixtures";
import { mcpClient } from "../mcp-client";
import { accountOf, startPaidChain, tokenBalance, usageOfPayer, usd, x402ClientFor, type PaidChain } from "../x402-fixtures";

let paid: PaidChain;
let gw: GatewayInstance;
let standIn: StandInMcpServer;
const NAME = `paid${Date.now() % 100000}`;

beforeAll(async () => {
  paid = await startPaidChain();
  [gw, standIn] = await Promise.all([startGatewayInstance({ env: paid.env }), startStandInMcpServer()]);
  // The operator's server: every workspace has it, the x402 workspace too.
  await addServer(cliActor(), null, { name: NAME, url: standIn.url, price_per_call: "0.0125" });
}, 120_000);

afterAll(async () => {
  await removeServer(cliActor(), null, NAME).catch(() => undefined);
  await Promise.all([gw?.stop(), standIn?.close()]);
  await paid?.anvil.stop();
});

describe("x402 per tool call on /mcp", () => {
  it("asks for payment in a tool result, serves the paid call, settles exactly its price, and refuses the payment a second time", async () => {
    const payer = accountOf(paid.chain.payerPrivateKey);
    const mcp = await mcpClient(null, { url: `${gw.url}/mcp` });
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toContain(`${NAME}__echo`);
    const calls = standIn.calls.length;

    const asked = await mcp.client.callTool({ name: `${NAME}__echo`, arguments: { text: "paid" } });
    expect(asked.isError).toBe(true);
    const required = asked.structuredContent as unknown as PaymentRequired;
    expect(required.x402Version).toBe(2);
    expect(required.accepts[0]).toMatchObject({ scheme: "exact", amount: "12500" });
    expect(JSON.parse((asked.content as { text: string }[])[0]!.text)).toEqual(required);
    expect(standIn.calls.length).toBe(calls);

    const payload = await x402ClientFor(payer).createPaymentPayload(required);
    const before = await tokenBalance(paid.chain, payer.address);
    const done = await mcp.client.callTool({ name: `${NAME}__echo`, arguments: { text: "paid" }, _meta: { "x402/payment": payload } });
    expect(done.isError).toBeFalsy();
    expect(done.content).toEqual([{ type: "text", text: "paid" }]);
    const receipt = done._meta?.["x402/payment-response"] as { success: boolean; transaction: string; payer: string };
    expect(receipt).toMatchObject({ success: true });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(standIn.calls.length).toBe(calls + 1);
    const spent = before - (await tokenBalance(paid.chain, payer.address));
    const usage = await usageOfPayer(payer.address);
    const event = usage.events.find((e) => e.paymentTx === receipt.transaction)!;
    expect(event).toMatchObject({ endpoint: "mcp.tools", paymentScheme: "exact", cost: "0.0125" });
    expect(usd(spent).toFixed()).toBe("0.0125");

    // The same payment again: refused (asked again), the tool not called.
    const replay = await mcp.client.callTool({ name: `${NAME}__echo`, arguments: { text: "again" }, _meta: { "x402/payment": payload } });
    expect(replay.isError).toBe(true);
    expect((replay.structuredContent as { error?: string }).error).toMatch(/nonce|used/i);
    expect(standIn.calls.length).toBe(calls + 1);
    await mcp.close();
  });

  it("a payload that is not an x402 payment is a JSON-RPC error (402 invalid_payment)", async () => {
    const mcp = await mcpClient(null, { url: `${gw.url}/mcp` });
    const err = await mcp.client.callTool({ name: `${NAME}__echo`, arguments: { text: "x" }, _meta: { "x402/payment": { nope: true } } }).then(
      () => null,
      (e: unknown) => e as { code: number; data: { code: string } },
    );
    expect(err).toMatchObject({ code: -32002, data: { code: "invalid_payment" } });
    await mcp.close();
  });
});
