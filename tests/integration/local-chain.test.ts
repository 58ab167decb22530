// The local x402 dev chain (anvil + LocalUSDC + Permit2 + the x402 proxies) against the official
// x402 packages, through their public APIs only: an x402Client (payer side) signs, an
// x402Facilitator verifies and settles on the chain, and the balances move by exactly the amount.
// Covers the exact scheme (EIP-3009 transferWithAuthorization) and the upto scheme (Permit2 via
// x402UptoPermit2Proxy, settling less than the signed maximum), and the reasons the facilitator
// gives for a reused payload, a bad signature, a wrong amount, an expired authorization and a
// payer without funds. Starts and stops its own anvil.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, createWalletClient, erc20Abi, http, publicActions, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactClientScheme } from "@x402/evm/exact/client";
import { ExactEvmScheme as ExactFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { UptoEvmScheme as UptoClientScheme } from "@x402/evm/upto/client";
import { UptoEvmScheme as UptoFacilitatorScheme } from "@x402/evm/upto/facilitator";
import { UptoEvmScheme as UptoServerScheme } from "@x402/evm/upto/server";
import { startAnvil, type Anvil } from "../../scripts/lib/chain/anvil";
import { anvilAccount, deployLocalX402, localChainArtifacts, PAYER_MINT_ATOMIC, type LocalX402Chain } from "../../scripts/lib/chain/deploy-local";

let anvil: Anvil;
let chain: LocalX402Chain;
let facilitator: x402Facilitator;
let payerAccount: PrivateKeyAccount;
let publicClient: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  anvil = await startAnvil();
  chain = await deployLocalX402(anvil.rpcUrl);
  publicClient = createPublicClient({ transport: http(chain.rpcUrl), pollingInterval: 50 });
  payerAccount = privateKeyToAccount(chain.payerPrivateKey);

  // The facilitator: anvil account 0, which pays the gas.
  const facilitatorAccount = privateKeyToAccount(chain.facilitatorPrivateKey);
  const facilitatorClient = createWalletClient({
    account: facilitatorAccount,
    chain: { id: chain.chainId, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } },
    transport: http(chain.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
  // The usual x402 setup (wallet client + public actions). The cast: viem 2.57's verifyTypedData
  // parameter type is stricter than the one FacilitatorEvmSigner declares; they work together.
  type SignerClient = Parameters<typeof toFacilitatorEvmSigner>[0];
  const signer = toFacilitatorEvmSigner({ ...facilitatorClient, address: facilitatorAccount.address } as unknown as SignerClient);
  facilitator = new x402Facilitator()
    .register(chain.network, new ExactFacilitatorScheme(signer))
    .register(chain.network, new UptoFacilitatorScheme(signer));
});

afterAll(async () => {
  await anvil?.stop();
});

const balanceOf = (address: `0x${string}`) =>
  publicClient.readContract({ address: chain.asset, abi: erc20Abi, functionName: "balanceOf", args: [address] });

/** A payer-side x402 client for `account`. The local token is not one of x402's default assets,
 *  so the client's spend controls must let it through (by default they refuse it). */
function payerClient(account: PrivateKeyAccount = payerAccount): x402Client {
  return new x402Client()
    .register(chain.network, new ExactClientScheme(account))
    .register(chain.network, new UptoClientScheme(account))
    .setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.asset }] });
}

async function pay(requirements: PaymentRequirements, client = payerClient()): Promise<PaymentPayload> {
  return client.createPaymentPayload({
    x402Version: 2,
    resource: { url: "http://gateway.test/v1/chat/completions", description: "test", mimeType: "application/json" },
    accepts: [requirements],
  });
}

function exactRequirements(over: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: chain.network,
    asset: chain.asset,
    amount: "1500000",
    payTo: chain.payTo,
    maxTimeoutSeconds: 60,
    extra: { name: chain.assetName, version: chain.assetVersion },
    ...over,
  };
}

/** What a resource server sends for upto: its base requirements, enhanced by the official upto
 *  server scheme with what the facilitator advertises in /supported (its address). */
async function uptoRequirements(over: Partial<PaymentRequirements> = {}): Promise<PaymentRequirements> {
  const kind = facilitator.getSupported().kinds.find((k) => k.scheme === "upto" && k.network === chain.network);
  expect(kind?.extra?.facilitatorAddress).toBe(privateKeyToAccount(chain.facilitatorPrivateKey).address);
  return new UptoServerScheme().enhancePaymentRequirements(
    {
      scheme: "upto",
      network: chain.network,
      asset: chain.asset,
      amount: "2000000",
      payTo: chain.payTo,
      maxTimeoutSeconds: 60,
      extra: { name: chain.assetName, version: chain.assetVersion },
      ...over,
    },
    { ...kind!, network: chain.network },
    [],
  );
}

/** A fresh anvil account (10000 ETH, no USDC, no Permit2 approval). */
const brokeAccount = () => privateKeyToAccount(anvilAccount(3).privateKey);

describe("local x402 chain", () => {
  it("deploys LocalUSDC, Permit2 and the proxies where @x402/evm expects them, idempotently", async () => {
    expect(chain).toMatchObject({
      chainId: 31337,
      network: "eip155:31337",
      asset: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      decimals: 6,
      permit2: "0x000000000022D473030F116dDEE9F6B43aC78BA3",
      exactProxy: "0x402085c248EeA27D92E8b30b2C58ed07f9E20001",
      uptoProxy: "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
      payTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      payer: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    });
    expect(await deployLocalX402(anvil.rpcUrl)).toEqual(chain);
    const token = { address: chain.asset, abi: erc20Abi } as const;
    expect(await publicClient.readContract({ ...token, functionName: "name" })).toBe("USD Coin");
    expect(await publicClient.readContract({ ...token, functionName: "symbol" })).toBe("USDC");
    expect(await publicClient.readContract({ ...token, functionName: "decimals" })).toBe(6);
    expect(await publicClient.readContract({ ...token, functionName: "allowance", args: [chain.payer, chain.permit2] })).toBe(2n ** 256n - 1n);
    // The proxies' ReentrancyGuard status slot was set by the constructor (NOT_ENTERED = 1).
    expect(BigInt((await publicClient.getStorageAt({ address: chain.uptoProxy, slot: "0x0" })) as Hex)).toBe(1n);
  });

  describe("exact (EIP-3009)", () => {
    it("pays: verify, settle, balances move by exactly the amount; the same payload cannot settle twice", async () => {
      const requirements = exactRequirements();
      const payload = await pay(requirements);
      expect(payload.accepted).toEqual(requirements);
      expect(payload.payload).toHaveProperty("authorization");

      const before = { payer: await balanceOf(chain.payer), payTo: await balanceOf(chain.payTo) };
      expect(before.payer).toBe(PAYER_MINT_ATOMIC);

      const verified = await facilitator.verify(payload, requirements);
      expect(verified).toMatchObject({ isValid: true, payer: chain.payer });

      const settled = await facilitator.settle(payload, requirements);
      expect(settled).toMatchObject({ success: true, network: chain.network, payer: chain.payer });
      expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await balanceOf(chain.payer)).toBe(before.payer - 1_500_000n);
      expect(await balanceOf(chain.payTo)).toBe(before.payTo + 1_500_000n);

      // Reused payload.
      expect(await facilitator.verify(payload, requirements)).toMatchObject({
        isValid: false,
        invalidReason: "invalid_exact_evm_nonce_already_used",
      });
      expect(await facilitator.settle(payload, requirements)).toMatchObject({
        success: false,
        errorReason: "invalid_exact_evm_nonce_already_used",
      });
      expect(await balanceOf(chain.payer)).toBe(before.payer - 1_500_000n);
    });

    it("refuses a bad signature, a wrong amount, an expired authorization and a payer without funds", async () => {
      const requirements = exactRequirements();

      const good = await pay(requirements);
      const sig = (good.payload as { signature: Hex }).signature;
      const tampered = { ...good, payload: { ...good.payload, signature: `${sig.slice(0, 10)}${sig[10] === "0" ? "1" : "0"}${sig.slice(11)}` } };
      expect(await facilitator.verify(tampered, requirements)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });

      // Signed for less than the requirements ask.
      const low = await pay(exactRequirements({ amount: "1000000" }));
      expect(await facilitator.verify(low, requirements)).toMatchObject({
        isValid: false,
        invalidReason: "invalid_exact_evm_payload_authorization_value_mismatch",
      });

      // validBefore = now + maxTimeoutSeconds; the facilitator wants at least 6 s left.
      const expiring = exactRequirements({ maxTimeoutSeconds: 1 });
      expect(await facilitator.verify(await pay(expiring), expiring)).toMatchObject({
        isValid: false,
        invalidReason: "invalid_exact_evm_payload_authorization_valid_before",
      });

      const broke = brokeAccount();
      const unfunded = await pay(requirements, payerClient(broke));
      expect(await facilitator.verify(unfunded, requirements)).toMatchObject({
        isValid: false,
        invalidReason: "invalid_exact_evm_insufficient_balance",
        payer: broke.address,
      });
      // settle does not simulate first: the transaction's revert string gives the reason.
      expect(await facilitator.settle(unfunded, requirements)).toMatchObject({
        success: false,
        errorReason: "invalid_exact_evm_insufficient_balance",
      });
    });

    it("also pays through Permit2 and x402ExactPermit2Proxy when extra.assetTransferMethod is \"permit2\"", async () => {
      const requirements = exactRequirements({ amount: "250000", extra: { assetTransferMethod: "permit2" } });
      const payload = await pay(requirements);
      expect(payload.payload).toHaveProperty("permit2Authorization.spender", chain.exactProxy);
      const before = { payer: await balanceOf(chain.payer), payTo: await balanceOf(chain.payTo) };
      expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true });
      expect(await facilitator.settle(payload, requirements)).toMatchObject({ success: true });
      expect(await balanceOf(chain.payer)).toBe(before.payer - 250_000n);
      expect(await balanceOf(chain.payTo)).toBe(before.payTo + 250_000n);
      // Reused: Permit2 reverts with InvalidNonce() (0x756688fe), which is not in the proxy's ABI, so
      // the settle reason is the generic one with viem's message appended.
      expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: "permit2_simulation_failed" });
      const again = await facilitator.settle(payload, requirements);
      expect(again.success).toBe(false);
      expect(again.errorReason).toMatch(/^invalid_exact_evm_transaction_failed: [\s\S]*0x756688fe/);
    });

    it("the default x402Client refuses the local token (not one of x402's default assets)", async () => {
      const client = new x402Client().register(chain.network, new ExactClientScheme(payerAccount));
      await expect(pay(exactRequirements(), client)).rejects.toThrow(/spendControls/);
    });
  });

  describe("upto (Permit2)", () => {
    it("pays less than the signed maximum: verify with the maximum, settle with the actual amount", async () => {
      const requirements = await uptoRequirements();
      const facilitatorAddress = privateKeyToAccount(chain.facilitatorPrivateKey).address;
      expect(requirements.extra).toEqual({
        name: "USD Coin",
        version: "2",
        assetTransferMethod: "permit2",
        facilitatorAddress,
      });

      const payload = await pay(requirements);
      const auth = (payload.payload as { permit2Authorization: Record<string, unknown> }).permit2Authorization;
      expect(auth).toMatchObject({
        from: chain.payer,
        spender: chain.uptoProxy,
        permitted: { token: chain.asset, amount: "2000000" },
        witness: { to: chain.payTo, facilitator: facilitatorAddress, validAfter: "0" },
      });

      const before = { payer: await balanceOf(chain.payer), payTo: await balanceOf(chain.payTo) };
      expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true, payer: chain.payer });

      // The actual amount goes in the settle requirements' `amount` (what x402ResourceServer does
      // with settlementOverrides.amount).
      const settled = await facilitator.settle(payload, { ...requirements, amount: "734567" });
      expect(settled).toMatchObject({ success: true, network: chain.network, payer: chain.payer, amount: "734567" });
      expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await balanceOf(chain.payer)).toBe(before.payer - 734_567n);
      expect(await balanceOf(chain.payTo)).toBe(before.payTo + 734_567n);

      // Reused payload: Permit2's nonce is spent.
      expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: "permit2_simulation_failed" });
      expect(await facilitator.settle(payload, { ...requirements, amount: "1" })).toMatchObject({
        success: false,
        errorReason: "permit2_simulation_failed",
      });
      expect(await balanceOf(chain.payer)).toBe(before.payer - 734_567n);
    });

    it("refuses settling above the maximum, a bad signature, a wrong amount, an expired permit, another facilitator and a payer without funds", async () => {
      const requirements = await uptoRequirements();
      const payload = await pay(requirements);
      expect(await facilitator.settle(payload, { ...requirements, amount: "2000001" })).toMatchObject({
        success: false,
        errorReason: "invalid_upto_evm_payload_settlement_exceeds_amount",
      });

      const sig = (payload.payload as { signature: Hex }).signature;
      const tampered = { ...payload, payload: { ...payload.payload, signature: `${sig.slice(0, 10)}${sig[10] === "0" ? "1" : "0"}${sig.slice(11)}` } };
      expect(await facilitator.verify(tampered, requirements)).toMatchObject({ isValid: false, invalidReason: "invalid_permit2_signature" });

      const low = await pay(await uptoRequirements({ amount: "1000000" }));
      expect(await facilitator.verify(low, requirements)).toMatchObject({ isValid: false, invalidReason: "permit2_amount_mismatch" });

      const expiring = await uptoRequirements({ maxTimeoutSeconds: 1 });
      expect(await facilitator.verify(await pay(expiring), expiring)).toMatchObject({
        isValid: false,
        invalidReason: "permit2_deadline_expired",
      });

      const elsewhere = { ...requirements, extra: { ...requirements.extra, facilitatorAddress: chain.payTo } };
      expect(await facilitator.verify(await pay(elsewhere), elsewhere)).toMatchObject({
        isValid: false,
        invalidReason: "upto_facilitator_mismatch",
      });

      const broke = brokeAccount();
      const unfunded = await pay(requirements, payerClient(broke));
      expect(await facilitator.verify(unfunded, requirements)).toMatchObject({
        isValid: false,
        invalidReason: "permit2_insufficient_balance",
        payer: broke.address,
      });
    });

    it("settling needs the payer to still hold the signed maximum, not just the amount settled", async () => {
      // Account 4: 1 USDC, Permit2 approved; signs for up to 2 USDC, owes 0.5.
      const account = privateKeyToAccount(anvilAccount(4).privateKey);
      const transport = http(chain.rpcUrl);
      const localChain = { id: chain.chainId, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } };
      const minter = createWalletClient({ account: privateKeyToAccount(chain.facilitatorPrivateKey), chain: localChain, transport });
      const holder = createWalletClient({ account, chain: localChain, transport });
      const { abi } = localChainArtifacts().LocalUSDC;
      await publicClient.waitForTransactionReceipt({ hash: await minter.writeContract({ address: chain.asset, abi, functionName: "mint", args: [account.address, 1_000_000n] }) });
      await publicClient.waitForTransactionReceipt({ hash: await holder.writeContract({ address: chain.asset, abi: erc20Abi, functionName: "approve", args: [chain.permit2, 2n ** 256n - 1n] }) });

      const requirements = await uptoRequirements();
      const payload = await pay(requirements, payerClient(account));
      expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: "permit2_insufficient_balance" });
      expect(await facilitator.settle(payload, { ...requirements, amount: "500000" })).toMatchObject({
        success: false,
        errorReason: "permit2_insufficient_balance",
      });
      expect(await balanceOf(account.address)).toBe(1_000_000n);
    });
  });
});
