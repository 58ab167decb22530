// Deploys what the official x402 EVM packages (@x402/evm) need to pay on a local anvil chain:
//   - LocalUSDC (chain/contracts/LocalUSDC.sol): a USDC look-alike with EIP-3009 and EIP-2612. On
//     a chain whose id has a default USDC in @x402/evm (84532, Base Sepolia, for X402_NETWORK=local),
//     it is put at that USDC's address with its EIP-712 name, so the official x402 client pays it
//     with its default spend controls (which accept only the assets it knows); on another chain it
//     is deployed normally by anvil account 0 (nonce 0, hence always at the same address);
//   - Permit2 at its canonical address 0x000000000022D473030F116dDEE9F6B43aC78BA3;
//   - the x402 exact and upto Permit2 proxies at the addresses @x402/evm hard-codes;
//   - Multicall3 at its canonical address 0xcA11bde05977b3631167028862bE2a173976CA11: @x402/evm's
//     facilitators read through it to tell why a payment would fail (without it every failed
//     simulation is reported as a generic "…simulation_failed").
// The last four cannot be deployed there by a transaction (their canonical addresses come from
// CREATE2 with byte-identical init code built by other compilers), so they are "deployed to" the
// address: the init code is installed there with anvil_setCode, an eth_call with no data runs the
// constructor with address(this) == target and returns the runtime code (with immutables such as
// Permit2's cached EIP-712 domain separator and the proxies' PERMIT2 computed for that address and
// chain id), a real transaction runs the constructor once more so that its storage writes persist
// (the proxies' ReentrancyGuard sets its status slot), and the runtime code then replaces the init code.
// Contracts come precompiled from chain/artifacts.json (see chain/compile.ts).
//
// Accounts are anvil's defaults (mnemonic "test test test test test test test test test test test
// junk"): 0 deploys and is the facilitator (pays gas, settles), 1 is payTo (the operator's receiving
// wallet), 2 is a demo payer holding 1,000,000 USDC that has approved Permit2 for everything.
//
// Idempotent: on a chain where it already ran, it deploys nothing and returns the same object.
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  domainSeparator,
  encodeDeployData,
  getAddress,
  getContractAddress,
  http,
  maxUint256,
  toHex,
  type Abi,
  type Chain,
  type Hex,
} from "viem";
import { mnemonicToAccount, type HDAccount } from "viem/accounts";
import { getDefaultAsset, PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress, x402UptoPermit2ProxyAddress } from "@x402/evm";
import { projectRoot } from "../../../server/infra/paths";

export type LocalX402Chain = {
  rpcUrl: string;
  chainId: number;
  network: `eip155:${number}`;
  asset: `0x${string}`;
  assetName: string;
  assetVersion: string;
  decimals: number;
  permit2: `0x${string}`;
  exactProxy: `0x${string}`;
  uptoProxy: `0x${string}`;
  payTo: `0x${string}`;
  facilitatorPrivateKey: `0x${string}`;
  payerPrivateKey: `0x${string}`;
  payer: `0x${string}`;
};

/** Anvil's (and Hardhat's) default dev mnemonic. Its keys are public: local chains only. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

/** The chain id of X402_NETWORK=local: Base Sepolia's, so its USDC is one the official client knows. */
export const LOCAL_CHAIN_ID = 84532;

export const LOCAL_USDC_NAME = "USD Coin";
export const LOCAL_USDC_VERSION = "2";
export const LOCAL_USDC_DECIMALS = 6;
/** What the demo payer is minted on deployment: 1,000,000 USDC. */
export const PAYER_MINT_ATOMIC = 1_000_000n * 10n ** 6n;

type Artifact = { abi: Abi; bytecode: Hex };
type ArtifactName = "LocalUSDC" | "Multicall3" | "Permit2" | "x402ExactPermit2Proxy" | "x402UptoPermit2Proxy";

/** Multicall3's canonical address (the one @x402/evm and viem use). */
export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;

let artifactsCache: Record<ArtifactName, Artifact> | undefined;
/** chain/artifacts.json (committed; produced by `node --import tsx chain/compile.ts`). */
export function localChainArtifacts(): Record<ArtifactName, Artifact> {
  artifactsCache ??= JSON.parse(readFileSync(path.join(projectRoot, "chain/artifacts.json"), "utf8")) as Record<
    ArtifactName,
    Artifact
  >;
  return artifactsCache;
}

type DevAccount = { account: HDAccount; privateKey: `0x${string}` };
const devAccounts = new Map<number, DevAccount>();
/** Anvil dev account `index` (derivation path m/44'/60'/0'/0/index) and its private key. */
export function anvilAccount(index: number): DevAccount {
  let found = devAccounts.get(index);
  if (!found) {
    const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
    const key = account.getHdKey().privateKey;
    if (!key) throw new Error(`no private key for dev account ${index}`);
    found = { account, privateKey: toHex(key) };
    devAccounts.set(index, found);
  }
  return found;
}

const erc20Abi = [
  { type: "function", name: "mint", stateMutability: "nonpayable", inputs: [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }], outputs: [] },
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [{ name: "spender", type: "address" }, { name: "amount", type: "uint256" }], outputs: [{ type: "bool" }] },
] as const;
const permit2ProbeAbi = [
  { type: "function", name: "DOMAIN_SEPARATOR", stateMutability: "view", inputs: [], outputs: [{ type: "bytes32" }] },
] as const;
const proxyProbeAbi = [
  { type: "function", name: "PERMIT2", stateMutability: "view", inputs: [], outputs: [{ type: "address" }] },
] as const;

/** Deploys (or finds) LocalUSDC, Permit2, the x402 proxies and Multicall3 on the anvil chain at `rpcUrl`. */
export async function deployLocalX402(rpcUrl: string): Promise<LocalX402Chain> {
  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  const chain: Chain = defineChain({
    id: chainId,
    name: `Local x402 (anvil ${chainId})`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });

  const deployer = anvilAccount(0);
  const payTo = anvilAccount(1);
  const payer = anvilAccount(2);
  const deployerWallet = createWalletClient({ chain, transport, account: deployer.account });
  const payerWallet = createWalletClient({ chain, transport, account: payer.account });
  const artifacts = localChainArtifacts();

  // The network's USDC as @x402/evm knows it, if it knows one (its address and EIP-712 name).
  const known = (() => {
    try {
      return getDefaultAsset(`eip155:${chainId}`);
    } catch {
      return null;
    }
  })();
  const asset = known ? getAddress(known.asset) : getContractAddress({ from: deployer.account.address, nonce: 0n });
  const assetName = known?.name ?? LOCAL_USDC_NAME;
  const permit2 = getAddress(PERMIT2_ADDRESS);
  const exactProxy = getAddress(x402ExactPermit2ProxyAddress);
  const uptoProxy = getAddress(x402UptoPermit2ProxyAddress);

  const result: LocalX402Chain = {
    rpcUrl,
    chainId,
    network: `eip155:${chainId}`,
    asset,
    assetName,
    assetVersion: LOCAL_USDC_VERSION,
    decimals: LOCAL_USDC_DECIMALS,
    permit2,
    exactProxy,
    uptoProxy,
    payTo: payTo.account.address,
    facilitatorPrivateKey: deployer.privateKey,
    payerPrivateKey: payer.privateKey,
    payer: payer.account.address,
  };

  const hasCode = async (address: `0x${string}`) => {
    const code = await publicClient.getCode({ address });
    return !!code && code !== "0x";
  };
  const mined = async (hash: Hex, what: string) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`local chain: ${what} reverted (tx ${hash})`);
    return receipt;
  };

  /** Puts `name`'s runtime code, constructed for `target`, at `target` (see the top of the file). */
  const placeAt = async (target: `0x${string}`, name: ArtifactName, args: readonly unknown[]) => {
    const { abi, bytecode } = artifacts[name];
    const initCode = encodeDeployData({ abi, bytecode, args });
    await testClient.setCode({ address: target, bytecode: initCode });
    // From the deployer, as the real transaction below (a constructor may keep msg.sender, e.g. LocalUSDC's minter).
    const { data: runtime } = await publicClient.call({ to: target, account: deployer.account.address });
    if (!runtime || runtime === "0x") throw new Error(`local chain: ${name}'s constructor returned no code at ${target}`);
    await mined(await deployerWallet.sendTransaction({ to: target }), `${name}'s constructor at ${target}`);
    await testClient.setCode({ address: target, bytecode: runtime });
  };

  const [tokenThere, permit2There, exactThere, uptoThere, multicallThere] = await Promise.all([
    hasCode(asset),
    hasCode(permit2),
    hasCode(exactProxy),
    hasCode(uptoProxy),
    hasCode(MULTICALL3_ADDRESS),
  ]);
  if (tokenThere && permit2There && exactThere && uptoThere && multicallThere) return result;

  if (!tokenThere && known) await placeAt(asset, "LocalUSDC", [assetName, "USDC"]);
  else if (!tokenThere) {
    const nonce = await publicClient.getTransactionCount({ address: deployer.account.address });
    if (nonce !== 0) {
      throw new Error(
        `local chain at ${rpcUrl}: no LocalUSDC at ${asset}, and dev account 0 (${deployer.account.address}) has already ` +
          `sent ${nonce} transaction(s), so it cannot be deployed there. Use a fresh anvil chain.`,
      );
    }
    const { abi, bytecode } = artifacts.LocalUSDC;
    const receipt = await mined(await deployerWallet.deployContract({ abi, bytecode, args: [assetName, "USDC"] }), "LocalUSDC deployment");
    if (!receipt.contractAddress || getAddress(receipt.contractAddress) !== asset) {
      throw new Error(`local chain: LocalUSDC landed at ${receipt.contractAddress}, expected ${asset}`);
    }
  }
  if (!permit2There) await placeAt(permit2, "Permit2", []);
  if (!exactThere) await placeAt(exactProxy, "x402ExactPermit2Proxy", [permit2]);
  if (!uptoThere) await placeAt(uptoProxy, "x402UptoPermit2Proxy", [permit2]);
  if (!multicallThere) await placeAt(MULTICALL3_ADDRESS, "Multicall3", []);

  // The demo payer's money, and its Permit2 approval (the upto scheme, and exact with
  // assetTransferMethod "permit2", pay through Permit2).
  if (!tokenThere) {
    await mined(
      await deployerWallet.writeContract({ address: asset, abi: erc20Abi, functionName: "mint", args: [result.payer, PAYER_MINT_ATOMIC] }),
      "mint to the demo payer",
    );
    await mined(
      await payerWallet.writeContract({ address: asset, abi: erc20Abi, functionName: "approve", args: [permit2, maxUint256] }),
      "the demo payer's Permit2 approval",
    );
  }

  // Sanity: the immutables were computed for the canonical addresses on this chain.
  const [separator, exactPermit2, uptoPermit2] = await Promise.all([
    publicClient.readContract({ address: permit2, abi: permit2ProbeAbi, functionName: "DOMAIN_SEPARATOR" }),
    publicClient.readContract({ address: exactProxy, abi: proxyProbeAbi, functionName: "PERMIT2" }),
    publicClient.readContract({ address: uptoProxy, abi: proxyProbeAbi, functionName: "PERMIT2" }),
  ]);
  if (separator !== domainSeparator({ domain: { name: "Permit2", chainId, verifyingContract: permit2 } })) {
    throw new Error("local chain: Permit2's domain separator does not match its canonical address and chain id");
  }
  if (getAddress(exactPermit2) !== permit2 || getAddress(uptoPermit2) !== permit2) {
    throw new Error("local chain: an x402 proxy does not point at Permit2");
  }
  return result;
}
