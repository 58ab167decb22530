// The x402 resource server of this process (@x402/core), with the EVM `exact` (EIP-3009) and
// `upto` (Permit2) schemes of @x402/evm for the operator's network, over the facilitator the
// operator chose: the built-in one (the operator's wallet verifies and settles over an RPC URL)
// or a remote one by URL. Built at the first paid call; a facilitator that cannot be reached then
// is tried again at the next call.
import type { FacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { x402Config, type X402Config } from "./config";
import { underWalletLock } from "./wallet-lock";

export type PaymentServer = { server: x402ResourceServer; config: X402Config };

let building: Promise<PaymentServer> | undefined;

async function builtInFacilitator(config: X402Config & { facilitator: { kind: "built_in" } }): Promise<FacilitatorClient> {
  const [{ x402Facilitator }, { toFacilitatorEvmSigner }, { ExactEvmScheme }, { UptoEvmScheme }, viem, { privateKeyToAccount }] = await Promise.all([
    import("@x402/core/facilitator"),
    import("@x402/evm"),
    import("@x402/evm/exact/facilitator"),
    import("@x402/evm/upto/facilitator"),
    import("viem"),
    import("viem/accounts"),
  ]);
  const account = privateKeyToAccount(config.facilitator.privateKey);
  const chain = viem.defineChain({
    id: config.chainId,
    name: config.network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.facilitator.rpcUrl] } },
  });
  // Receipts are polled every 100 ms (viem's default is 4 s: a settlement would wait that long on a
  // chain that mines at once, and half a block on most L2s).
  const client = viem
    .createWalletClient({ account, chain, transport: viem.http(config.facilitator.rpcUrl, { timeout: 10_000 }), pollingInterval: 100 })
    .extend(viem.publicActions);
  // Every process of every instance may settle with this wallet: each transaction is numbered and
  // sent under one PostgreSQL lock per wallet, so no two take the same nonce (viem reads the
  // wallet's pending count when it prepares one).
  const { writeContract, sendTransaction } = client;
  const signer = toFacilitatorEvmSigner(
    {
      ...client,
      address: account.address,
      writeContract: (args: Parameters<typeof writeContract>[0]) => underWalletLock(account.address, () => writeContract(args)),
      sendTransaction: (args: Parameters<typeof sendTransaction>[0]) => underWalletLock(account.address, () => sendTransaction(args)),
    } as never,
    { confirmationTimeoutMs: 60_000 },
  );
  const facilitator = new x402Facilitator().register(config.network, new ExactEvmScheme(signer)).register(config.network, new UptoEvmScheme(signer));
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as never,
  };
}

async function build(config: X402Config): Promise<PaymentServer> {
  const [{ x402ResourceServer, HTTPFacilitatorClient }, { ExactEvmScheme }, { UptoEvmScheme }] = await Promise.all([
    import("@x402/core/server"),
    import("@x402/evm/exact/server"),
    import("@x402/evm/upto/server"),
  ]);
  const facilitator = config.facilitator.kind === "remote" ? new HTTPFacilitatorClient({ url: config.facilitator.url }) : await builtInFacilitator({ ...config, facilitator: config.facilitator });
  const server = new x402ResourceServer(facilitator).register(config.network, new ExactEvmScheme()).register(config.network, new UptoEvmScheme());
  await server.initialize();
  return { server, config };
}

/** This process's resource server; rejects (and is built anew next time) when the facilitator cannot be reached. */
export function paymentServer(): Promise<PaymentServer> {
  const config = x402Config();
  if (!config) return Promise.reject(new Error("x402 is not enabled"));
  building ??= build(config).catch((err) => {
    building = undefined;
    throw err;
  });
  return building;
}
