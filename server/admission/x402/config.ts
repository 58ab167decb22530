// The operator's x402 settings, from the environment: which network and token payments are made
// in, who receives them, and which facilitator verifies and settles them. x402 is off unless
// X402_NETWORK is set; `local` is resolved to a dev chain by npm start before the gateway starts.
import { env } from "../../infra/env";

type Address = `0x${string}`;

export type X402Config = {
  network: `eip155:${number}`;
  chainId: number;
  rpcUrl: string | null;
  asset: Address;
  assetName: string;
  assetVersion: string;
  decimals: number;
  payTo: Address;
  facilitator: { kind: "remote"; url: string } | { kind: "built_in"; privateKey: Address; rpcUrl: string };
  maxTimeoutSeconds: number;
};

let cached: X402Config | null | undefined;

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`x402: ${name} is required when X402_NETWORK is set (docs/X402.md)`);
  return value;
}

function fromEnv(): X402Config | null {
  if (!env.X402_NETWORK) return null;
  if (env.X402_NETWORK === "local") throw new Error("x402: X402_NETWORK=local is resolved by `npm start`, which runs the local chain; set the network's settings to start the server alone");
  const network = env.X402_NETWORK as `eip155:${number}`;
  const rpcUrl = env.X402_RPC_URL ?? null;
  const facilitator: X402Config["facilitator"] = env.X402_FACILITATOR_URL
    ? { kind: "remote", url: env.X402_FACILITATOR_URL }
    : { kind: "built_in", privateKey: required(env.X402_FACILITATOR_PRIVATE_KEY, "X402_FACILITATOR_PRIVATE_KEY (or X402_FACILITATOR_URL)") as Address, rpcUrl: required(env.X402_RPC_URL, "X402_RPC_URL") };
  return {
    network,
    chainId: Number(network.slice("eip155:".length)),
    rpcUrl,
    asset: required(env.X402_ASSET, "X402_ASSET") as Address,
    assetName: env.X402_ASSET_NAME,
    assetVersion: env.X402_ASSET_VERSION,
    decimals: env.X402_ASSET_DECIMALS,
    payTo: required(env.X402_PAY_TO, "X402_PAY_TO") as Address,
    facilitator,
    maxTimeoutSeconds: env.X402_MAX_TIMEOUT_SECONDS,
  };
}

/** The settings, or null when x402 is off. Throws at first use when they are incomplete. */
export function x402Config(): X402Config | null {
  if (cached === undefined) cached = fromEnv();
  return cached;
}

export const x402Enabled = (): boolean => Boolean(env.X402_NETWORK);
