// x402: what payers paid (revenue per UTC day and per model, the latest payments), and the demo
// wallet of the local dev chain (`X402_NETWORK=local npm start`). Amounts are exact decimals: USD
// for revenue, atomic units of the asset for payments.
import { dataDir } from "../../server/infra/db/data-dir";
import { x402Revenue, type PaymentRow, type X402Overview } from "../../server/admission/x402/revenue";
import { readDemoWallet } from "../lib/x402-local";
import { parse, UsageError, type Command } from "./args";
import { wholeNumber } from "./flag-values";
import { table } from "./output";

const MAX_DAYS = 366;
const MAX_LIMIT = 1000;

/** Commands that never touch the database: scripts/cli.ts runs them without connecting. */
export const x402OfflineCommands: ReadonlySet<string> = new Set(["x402 demo-wallet"]);

function bounded(value: string | undefined, flag: string, max: number, fallback: number): number {
  const n = wholeNumber(value, flag) ?? fallback;
  if (n > max) throw new UsageError(`--${flag} must be at most ${max}, got "${value}"`);
  return n;
}

function status(o: Omit<X402Overview, "payments">): string {
  return o.enabled ? `x402 is on: network ${o.network}, asset ${o.asset}, pay-to ${o.payTo}.` : "x402 is off (X402_NETWORK is not set; docs/X402.md).";
}

function revenueText(o: Omit<X402Overview, "payments">): string {
  return [
    status(o),
    `Last ${o.days} day(s): ${o.total} USD from ${o.calls} call(s) by ${o.payers} payer(s).`,
    "",
    "Per UTC day:",
    table(o.byDay.map((d) => ({ day: d.day, calls: d.calls, revenue_usd: d.revenue }))),
    "",
    "Per model:",
    table(o.byModel.map((m) => ({ model: m.model, calls: m.calls, revenue_usd: m.revenue }))),
    "",
    `Total: ${o.total} USD`,
  ].join("\n");
}

const paymentRows = (payments: PaymentRow[]) =>
  payments.map((p) => ({
    id: p.id,
    created: p.createdAt,
    payer: p.payer,
    scheme: p.scheme,
    endpoint: p.endpoint,
    model: p.model,
    status: p.status,
    max_atomic: p.maxAmount,
    settled_atomic: p.settledAmount,
    tx: p.txHash,
    error: p.errorReason,
  }));

export const x402Commands: Record<string, Command> = {
  "x402 revenue": (argv) => {
    const { values } = parse(argv, { days: { type: "string" } }, []);
    const days = bounded(values.days, "days", MAX_DAYS, 30);
    return async () => {
      const { payments: _payments, ...overview } = await x402Revenue(days, 0);
      return { json: overview, text: revenueText(overview), asJson: values.json };
    };
  },
  "x402 payments": (argv) => {
    const { values } = parse(argv, { limit: { type: "string" } }, []);
    const limit = bounded(values.limit, "limit", MAX_LIMIT, 50);
    return async () => {
      const { payments } = await x402Revenue(1, limit);
      return { json: { payments }, text: table(paymentRows(payments)), asJson: values.json };
    };
  },
  "x402 demo-wallet": (argv) => {
    const { values } = parse(argv, {}, []);
    return async () => {
      const dir = dataDir();
      const w = readDemoWallet(dir);
      if (!w) throw new Error(`no demo wallet in ${dir}: start the gateway with \`X402_NETWORK=local npm start\` (docs/X402.md), then run this again.`);
      const wallet = { network: w.network, chainId: w.chainId, rpcUrl: w.rpcUrl, asset: w.asset, payTo: w.payTo, payerPrivateKey: w.payerPrivateKey, payer: w.payer };
      const text = [
        `network:           ${wallet.network} (chain id ${wallet.chainId})`,
        `rpc url:           ${wallet.rpcUrl}`,
        `asset:             ${wallet.asset}`,
        `pay-to:            ${wallet.payTo}`,
        `payer:             ${wallet.payer}`,
        `payer private key: ${wallet.payerPrivateKey}`,
        "(a throwaway key of the local dev chain; never use it on a real network)",
      ].join("\n");
      return { json: wallet, text, asJson: values.json };
    };
  },
};
