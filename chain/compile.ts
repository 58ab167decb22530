// Compiles the local dev chain's contracts (chain/contracts/) into chain/artifacts.json.
//
//   node --import tsx chain/compile.ts
//
// artifacts.json is committed, so nothing compiles at runtime; run this again only after changing
// a .sol file. It uses the `solc` npm package (solc-js 0.8.28, a devDependency) and resolves
// `solmate/...` and `@openzeppelin/contracts/...` imports from node_modules.
//
// Two compilations, each with the settings of the project the sources come from:
//   - Permit2 (Uniswap, chain/contracts/permit2/): Permit2's foundry.toml — via_ir, optimizer
//     1_000_000 runs, bytecode_hash "none". (It pins solc 0.8.17; the vendored pragmas are relaxed
//     to ^0.8.17, see the comments there.) via_ir under solc-js takes a while, but well under the
//     "few minutes" budget, so Permit2's own settings are kept.
//   - The x402 Permit2 proxies (chain/contracts/x402/) and LocalUSDC: the x402 contracts'
//     foundry.toml — solc 0.8.28, optimizer 200 runs, no via_ir, no CBOR metadata.
//   - Multicall3 (mds1/multicall3, chain/contracts/multicall3/): its foundry.toml — optimizer
//     10_000_000 runs (it pins solc 0.8.12; pragma relaxed likewise). @x402/evm's facilitators
//     read through Multicall3 at its canonical address to explain why a payment would fail
//     (insufficient balance, nonce already used, missing Permit2 allowance…).
// EVM version: solc 0.8.28's default (cancun) for all.
//
// Output: { [contractName]: { abi, bytecode } } for LocalUSDC, Multicall3, Permit2,
// x402ExactPermit2Proxy and x402UptoPermit2Proxy; `bytecode` is the 0x-prefixed creation code
// (constructor arguments not included).

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

type SolcOutputContract = { abi: unknown[]; evm: { bytecode: { object: string } } };
type SolcOutput = {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, SolcOutputContract>>;
};
type Solc = {
  version(): string;
  compile(input: string, callbacks?: { import: (path: string) => { contents: string } | { error: string } }): string;
};

const require = createRequire(import.meta.url);
const solc = require("solc") as Solc;

const here = dirname(fileURLToPath(import.meta.url));
const contractsDir = join(here, "contracts");
const outFile = join(here, "artifacts.json");

/** Directory of an installed npm package, found the way Node would from this file. */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}
const remappings: [prefix: string, dir: string][] = [
  ["solmate/", packageDir("solmate")],
  ["@openzeppelin/contracts/", packageDir("@openzeppelin/contracts")],
];

/** Source unit names are paths relative to chain/contracts (e.g. "permit2/Permit2.sol"). */
function findImport(path: string): { contents: string } | { error: string } {
  for (const [prefix, dir] of remappings) {
    if (path.startsWith(prefix)) return read(join(dir, path.slice(prefix.length)));
  }
  const file = resolve(contractsDir, path);
  if (relative(contractsDir, file).startsWith("..")) return { error: `import outside chain/contracts: ${path}` };
  return read(file);
}
function read(file: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(file, "utf8") };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

type Job = {
  label: string;
  sources: string[];
  wanted: Record<string, string>; // contract name -> source unit
  settings: Record<string, unknown>;
};

const outputSelection = { "*": { "*": ["abi", "evm.bytecode.object"] } };

const jobs: Job[] = [
  {
    label: "Permit2 (via_ir, 1000000 runs)",
    sources: ["permit2/Permit2.sol"],
    wanted: { Permit2: "permit2/Permit2.sol" },
    settings: {
      viaIR: true,
      optimizer: { enabled: true, runs: 1_000_000 },
      metadata: { bytecodeHash: "none" },
      outputSelection,
    },
  },
  {
    label: "Multicall3 (10000000 runs)",
    sources: ["multicall3/Multicall3.sol"],
    wanted: { Multicall3: "multicall3/Multicall3.sol" },
    settings: {
      optimizer: { enabled: true, runs: 10_000_000 },
      metadata: { bytecodeHash: "none" },
      outputSelection,
    },
  },
  {
    label: "x402 proxies + LocalUSDC (200 runs)",
    sources: ["x402/x402ExactPermit2Proxy.sol", "x402/x402UptoPermit2Proxy.sol", "LocalUSDC.sol"],
    wanted: {
      x402ExactPermit2Proxy: "x402/x402ExactPermit2Proxy.sol",
      x402UptoPermit2Proxy: "x402/x402UptoPermit2Proxy.sol",
      LocalUSDC: "LocalUSDC.sol",
    },
    settings: {
      viaIR: false,
      optimizer: { enabled: true, runs: 200 },
      metadata: { bytecodeHash: "none", appendCBOR: false },
      outputSelection,
    },
  },
];

function compile(job: Job): Record<string, { abi: unknown[]; bytecode: `0x${string}` }> {
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(
      job.sources.map((unit) => [unit, { content: readFileSync(join(contractsDir, ...unit.split("/")), "utf8") }]),
    ),
    settings: job.settings,
  };
  const started = Date.now();
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  for (const w of (output.errors ?? []).filter((e) => e.severity !== "error")) console.warn(w.formattedMessage);
  if (errors.length > 0) throw new Error(`${job.label}: compilation failed\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  console.log(`compiled ${job.label} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const result: Record<string, { abi: unknown[]; bytecode: `0x${string}` }> = {};
  for (const [name, unit] of Object.entries(job.wanted)) {
    const c = output.contracts?.[unit]?.[name];
    if (!c || !c.evm.bytecode.object) throw new Error(`${job.label}: no bytecode for ${unit}:${name}`);
    result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return result;
}

console.log(`solc ${solc.version()}`);
const artifacts: Record<string, { abi: unknown[]; bytecode: `0x${string}` }> = {};
for (const job of jobs) Object.assign(artifacts, compile(job));
const ordered = Object.fromEntries(Object.keys(artifacts).sort().map((k) => [k, artifacts[k]]));
writeFileSync(outFile, `${JSON.stringify(ordered, null, 2)}\n`);
console.log(`wrote ${relative(process.cwd(), outFile).split(sep).join("/")}: ${Object.keys(ordered).join(", ")}`);
