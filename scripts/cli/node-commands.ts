import { readFileSync } from "node:fs";
import { isCloudWire } from "../../server/providers/cloud";
import { cliActor } from "../../server/audit/actor";
import { listModelDetailsUncached } from "../../server/routing/catalog/models";
import { setModelPrice } from "../../server/routing/catalog/set-price";
import { addNode, listNodes, removeNode, ZAddNodeInput } from "../../server/routing/nodes/nodes";
import type { NodeView } from "../../server/routing/nodes/node-view";
import { parse, required, UsageError, type Command } from "./args";
import { table } from "./output";

const nodeRows = (nodes: NodeView[]) =>
  nodes.map((n) => ({
    id: n.id,
    name: n.name,
    url: n.baseUrl,
    wire: n.wire,
    region: `${n.region.city}, ${n.region.country}`,
    status: n.status,
    checked: n.lastHealthCheckAt,
    models: n.models.map((m) => m.model).join(",") || null,
  }));

function parseModelMap(pairs: string[] = [], flag = "--model"): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of pairs) {
    const [gateway, upstream] = pair.split("=");
    if (!gateway || !upstream) throw new UsageError(`${flag} expects GATEWAY_MODEL=${flag === "--model" ? "UPSTREAM_MODEL" : "DEPLOYMENT"}, got ${pair}`);
    map[gateway] = upstream;
  }
  return map;
}

type CloudFlags = Partial<Record<string, string | boolean | string[]>>;

/** A cloud node's settings and credentials from its flags (none given: none sent). */
function cloudInput(values: CloudFlags): { cloud?: Record<string, unknown>; credentials?: Record<string, unknown> } {
  const str = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  const managed = str("managed-identity-client-id") ?? (values["managed-identity"] ? true : undefined);
  const cloud = dropUndefined({ region: str("region"), project: str("project"), location: str("location"), apiVersion: str("api-version"), managedIdentity: managed });
  let serviceAccount: unknown;
  const file = str("credentials");
  if (file) {
    try {
      serviceAccount = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new UsageError(`--credentials: ${file} is not a readable JSON key file (${(err as Error).message})`);
    }
  }
  const credentials = dropUndefined({
    access_key_id: str("access-key-id"),
    secret_access_key: str("secret-access-key"),
    session_token: str("session-token"),
    tenant_id: str("tenant-id"),
    client_id: str("client-id"),
    client_secret: str("client-secret"),
    service_account: serviceAccount,
  });
  return { ...(Object.keys(cloud).length ? { cloud } : {}), ...(Object.keys(credentials).length ? { credentials } : {}) };
}

function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

export const nodeCommands: Record<string, Command> = {
  "node add": (argv) => {
    const { values } = parse(
      argv,
      {
        name: { type: "string" },
        url: { type: "string" },
        "api-key": { type: "string" },
        key: { type: "string" },
        wire: { type: "string" },
        city: { type: "string" },
        country: { type: "string" },
        weight: { type: "string" },
        model: { type: "string", multiple: true },
        "no-discover": { type: "boolean" },
        // The clouds (azure, bedrock, vertex).
        endpoint: { type: "string" },
        region: { type: "string" },
        project: { type: "string" },
        location: { type: "string" },
        "api-version": { type: "string" },
        deployment: { type: "string", multiple: true },
        credentials: { type: "string" },
        "access-key-id": { type: "string" },
        "secret-access-key": { type: "string" },
        "session-token": { type: "string" },
        "tenant-id": { type: "string" },
        "client-id": { type: "string" },
        "client-secret": { type: "string" },
        "managed-identity": { type: "boolean" },
        "managed-identity-client-id": { type: "string" },
      },
      [],
    );
    const weight = values.weight === undefined ? undefined : Number(values.weight);
    if (weight !== undefined && !Number.isInteger(weight)) throw new UsageError("--weight must be an integer");
    const input = ZAddNodeInput.parse({
      name: required(values.name, "name"),
      url: values.endpoint ?? values.url ?? (isCloudWire(values.wire) ? undefined : required(values.url, "url")),
      apiKey: values.key ?? values["api-key"],
      wire: values.wire,
      ...cloudInput(values),
      city: required(values.city, "city"),
      country: required(values.country, "country"),
      weight,
      models: { ...parseModelMap(values.model as string[] | undefined), ...parseModelMap(values.deployment as string[] | undefined, "--deployment") },
      discover: !values["no-discover"],
    });
    return async () => {
      const added = await addNode(input, cliActor());
      const lines = [`Added node ${added.node.id} (${added.node.name}) at ${added.node.baseUrl}.`];
      lines.push(
        added.discoveryError
          ? `Model discovery failed (${added.discoveryError}); the health check will keep trying the node.`
          : `The node lists ${added.discovered} model(s); serving: ${added.node.models.map((m) => m.model).join(", ") || "none in the catalog"}.`,
      );
      if (added.importedModels.length) lines.push(`Imported into the catalog: ${added.importedModels.join(", ")}.`);
      return { json: added, text: lines.join("\n"), asJson: values.json };
    };
  },
  "node list": (argv) => {
    const { values } = parse(argv, {}, []);
    return async () => {
      const nodes = await listNodes();
      return { json: { nodes }, text: table(nodeRows(nodes)), asJson: values.json };
    };
  },
  "node remove": (argv) => {
    const { values, args } = parse(argv, {}, ["NODE_ID"]);
    return async () => {
      const node = await removeNode(args[0]!, cliActor());
      return { json: { node }, text: `Removed node ${node.id} (${node.name}).`, asJson: values.json };
    };
  },
  "model price": (argv) => {
    const { values, args } = parse(
      argv,
      {
        input: { type: "string" },
        output: { type: "string" },
        "cache-read": { type: "string" },
        "cache-write": { type: "string" },
        reasoning: { type: "string" },
        "training-per-1m": { type: "string" },
        "ft-input-per-1m": { type: "string" },
        "ft-output-per-1m": { type: "string" },
      },
      ["MODEL_ID"],
    );
    // The fine-tuning prices alone may be set on a model already priced: then --input and --output may be left out.
    const fineTuning = { training: values["training-per-1m"], ftInput: values["ft-input-per-1m"], ftOutput: values["ft-output-per-1m"] };
    const onlyFineTuning = values.input === undefined && values.output === undefined && Object.values(fineTuning).some((v) => v !== undefined);
    const input = {
      model: args[0]!,
      input: onlyFineTuning ? undefined : required(values.input, "input"),
      output: onlyFineTuning ? undefined : required(values.output, "output"),
      cacheRead: values["cache-read"],
      cacheWrite: values["cache-write"],
      reasoning: values.reasoning,
      ...fineTuning,
    };
    return async () => {
      const model = await setModelPrice(input, cliActor());
      const p = model.pricing;
      const tuning = `training ${p.training_per_1m}, fine-tuned input ${p.fine_tuned_input_per_1m === "0" ? p.input_per_1m : p.fine_tuned_input_per_1m}, fine-tuned output ${p.fine_tuned_output_per_1m === "0" ? p.output_per_1m : p.fine_tuned_output_per_1m}`;
      const text = `Priced ${model.id} per 1M tokens: input ${p.input_per_1m}, output ${p.output_per_1m}, cache read ${p.cache_read_per_1m}, cache write ${p.cache_write_per_1m === "0" ? p.input_per_1m : p.cache_write_per_1m}; ${tuning}; it is served.`;
      return { json: { model }, text, asJson: values.json };
    };
  },
  "model list": (argv) => {
    const { values } = parse(argv, {}, []);
    return async () => {
      const models = await listModelDetailsUncached();
      const rows = models.map((m) => ({
        id: m.id,
        type: m.type,
        ready: m.ready_now,
        input_per_1m: m.pricing.input_per_1m,
        output_per_1m: m.pricing.output_per_1m,
        other: [
          ["per_1m_chars", m.pricing.per_1m_chars],
          ["per_audio_second", m.pricing.per_audio_second],
          ["per_image", m.pricing.per_image],
          ["per_video_second", m.pricing.per_video_second],
        ]
          .filter(([, v]) => v !== "0")
          .map(([k, v]) => `${k}=${v}`)
          .join(" ") || null,
      }));
      return { json: { object: "list", data: models }, text: table(rows), asJson: values.json };
    };
  },
};
