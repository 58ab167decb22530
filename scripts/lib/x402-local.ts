// X402_NETWORK=local: a dev chain (anvil) beside the gateway, with a USDC-like token, Permit2 and
// the x402 proxies at their canonical addresses and a funded demo payer (scripts/lib/chain/). The
// gateway's processes get the chain's settings as their x402 environment; the demo wallet is
// written to DATA_DIR/x402-local.json for `npm run cli -- x402 demo-wallet`. The chain's state is
// kept in DATA_DIR/chain-state.json between starts, so balances and past payments stay on it.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startAnvil, type Anvil } from "./chain/anvil";
import { deployLocalX402, LOCAL_CHAIN_ID, type LocalX402Chain } from "./chain/deploy-local";

export type DemoWallet = { network: string; chainId: number; rpcUrl: string; asset: string; payTo: string; payerPrivateKey: string; payer: string };

const walletFile = (dataDir: string) => path.join(dataDir, "x402-local.json");

export type LocalChain = { anvil: Anvil; chain: LocalX402Chain; env: Record<string, string>; wallet: DemoWallet };

/** The x402 settings of a gateway paid on the chain, with its built-in facilitator. */
export function x402EnvOf(chain: LocalX402Chain): Record<string, string> {
  return {
    X402_NETWORK: chain.network,
    X402_RPC_URL: chain.rpcUrl,
    X402_ASSET: chain.asset,
    X402_ASSET_NAME: chain.assetName,
    X402_ASSET_VERSION: chain.assetVersion,
    X402_ASSET_DECIMALS: String(chain.decimals),
    X402_PAY_TO: chain.payTo,
    X402_FACILITATOR_PRIVATE_KEY: chain.facilitatorPrivateKey,
  };
}

export async function startLocalChain(dataDir: string): Promise<LocalChain> {
  const anvil = await startAnvil({ chainId: LOCAL_CHAIN_ID, stdio: "ignore", statePath: path.join(dataDir, "chain-state.json") });
  try {
    const chain = await deployLocalX402(anvil.rpcUrl);
    const env = x402EnvOf(chain);
    const wallet: DemoWallet = { network: chain.network, chainId: chain.chainId, rpcUrl: chain.rpcUrl, asset: chain.asset, payTo: chain.payTo, payerPrivateKey: chain.payerPrivateKey, payer: chain.payer };
    writeFileSync(walletFile(dataDir), JSON.stringify(wallet, null, 2), { mode: 0o600 });
    return { anvil, chain, env, wallet };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/** The demo wallet of the local chain the gateway using `dataDir` runs; null when there is none. */
export function readDemoWallet(dataDir: string): DemoWallet | null {
  try {
    return JSON.parse(readFileSync(walletFile(dataDir), "utf8")) as DemoWallet;
  } catch {
    return null;
  }
}
