import { cliActor } from "../../server/audit/actor";
import { clearCache } from "../../server/response-cache/clear";
import { getCacheSettings, setCacheSettings } from "../../server/response-cache/settings";
import { parse, UsageError, type Command } from "./args";
import { requireWorkspace } from "./require-workspace";

const wholeNumber = (value: string | undefined, flag: string) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number of seconds`);
  return Number(value);
};

export const cacheCommands: Record<string, Command> = {
  "cache clear": (argv) => {
    const { values, args } = parse(argv, { model: { type: "string" }, key: { type: "string" } }, ["WORKSPACE_ID"]);
    if (values.model && values.key) throw new UsageError("give --model or --key, not both");
    return async () => {
      await requireWorkspace(args[0]!);
      const json = await clearCache(args[0]!, { model: values.model, keyId: values.key }, cliActor());
      return { json, text: `Removed ${json.removed} cache entr${json.removed === 1 ? "y" : "ies"}.`, asJson: values.json };
    };
  },
  "cache settings": (argv) => {
    const { values, args } = parse(
      argv,
      {
        "default-on": { type: "boolean" },
        "default-off": { type: "boolean" },
        ttl: { type: "string" },
        "max-ttl": { type: "string" },
        "price-fraction": { type: "string" },
        sampling: { type: "boolean" },
        "no-sampling": { type: "boolean" },
      },
      ["WORKSPACE_ID"],
    );
    if (values["default-on"] && values["default-off"]) throw new UsageError("give --default-on or --default-off, not both");
    if (values.sampling && values["no-sampling"]) throw new UsageError("give --sampling or --no-sampling, not both");
    const patch = {
      ...(values["default-on"] && { default_on: true }),
      ...(values["default-off"] && { default_on: false }),
      ...(values.ttl !== undefined && { ttl_seconds: wholeNumber(values.ttl, "--ttl") }),
      ...(values["max-ttl"] !== undefined && { max_ttl_seconds: wholeNumber(values["max-ttl"], "--max-ttl") }),
      ...(values["price-fraction"] !== undefined && { price_fraction: values["price-fraction"] }),
      ...(values.sampling && { sampling: true }),
      ...(values["no-sampling"] && { sampling: false }),
    };
    return async () => {
      await requireWorkspace(args[0]!);
      const json = Object.keys(patch).length ? await setCacheSettings(args[0]!, patch, cliActor()) : await getCacheSettings(args[0]!);
      const text = `cache ${json.default_on ? "on" : "off"} by default, ttl ${json.ttl_seconds} s (at most ${json.max_ttl_seconds} s), a hit costs ${json.price_fraction} of the call, sampled calls ${json.sampling ? "cached" : "not cached"}`;
      return { json, text, asJson: values.json };
    };
  },
};
