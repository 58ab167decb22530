// A local chain with the x402 contracts, gateway instances paid on it, and a payer using the
// official x402 client (@x402/fetch with the exact and upto EVM schemes over a viem account).
import { wrapFetchWithPayment } from "@x402/fetch";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { createPublicClient, erc20Abi, http, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { db } from "../server/infra/db/client";
import { startAnvil, type Anvil } from "../scripts/lib/chain/anvil";
import { deployLocalX402, LOCAL_CHAIN_ID, type LocalX402Chain } from "../scripts/lib/chain/deploy-local";
import { money, type Money } from "../server/kernel/money";
import { x402EnvOf } from "../scripts/lib/x402-local";

export type PaidChain = { anvil: Anvil; chain: LocalX402Chain; env: Record<string, string> };

export async function startPaidChain(): Promise<PaidChain> {
  const anvil = await startAnvil({ chainId: LOCAL_CHAIN_ID });
  const chain = await deployLocalX402(anvil.rpcUrl).catch(async (err: unknown) => {
    await anvil.stop();
    throw err;
  });
  return { anvil, chain, env: x402EnvOf(chain) };
}

/** The official client, unchanged: fetch that pays 402s with the account. */
export function payingFetch(account: PrivateKeyAccount): typeof fetch {
  return wrapFetchWithPayment(fetch, officialClient(account));
}

/** The official client with the exact and upto EVM schemes, as docs/X402.md sets it up. */
function officialClient(account: PrivateKeyAccount): x402Client {
  return new x402Client().register("eip155:*", new ExactEvmScheme(account)).register("eip155:*", new UptoEvmScheme(account));
}

/** A client that signs whatever it is asked to (no spend controls): for crafting payments the gateway must refuse. */
export function x402ClientFor(account: PrivateKeyAccount): x402Client {
  return officialClient(account).setSpendControls(false);
}

export function accountOf(key: Hex): PrivateKeyAccount {
  return privateKeyToAccount(key);
}

/** The token balance of an address, in atomic units. */
export async function tokenBalance(chain: LocalX402Chain, who: `0x${string}`): Promise<bigint> {
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  return client.readContract({ address: chain.asset, abi: erc20Abi, functionName: "balanceOf", args: [who] });
}

/** What the usage events of a payer add up to, in USD (exact). */
export async function usageOfPayer(payer: string): Promise<{ cost: Money; events: { id: string; cost: string; paymentScheme: string | null; paymentTx: string | null; endpoint: string }[] }> {
  const events = await db.usageEvent.findMany({ where: { payer: payer.toLowerCase() }, orderBy: { createdAt: "asc" } });
  const rows = events.map((e) => ({ id: e.id, cost: e.cost.toFixed(), paymentScheme: e.paymentScheme, paymentTx: e.paymentTx, endpoint: e.endpoint }));
  return { cost: rows.reduce((acc, r) => acc.plus(r.cost), money(0)), events: rows };
}

/** Atomic units of a 6-decimal token as USD. */
export const usd = (atomic: bigint, decimals = 6): Money => money(atomic.toString()).dividedBy(money(10).pow(decimals));
