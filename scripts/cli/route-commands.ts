// Routes (virtual models, docs/ROUTING.md): a workspace's own, or the operator's (--global) that
// every workspace sees.
import { readFileSync } from "node:fs";
import { cliActor } from "../../server/audit/actor";
import { listRoutes, removeRoute, setRoute, showRoute, type RouteView } from "../../server/routing/routes/route-store";
import { parseScoped, UsageError, type Command } from "./args";
import { requireWorkspace } from "./require-workspace";

const line = (r: RouteView) => `${r.name}  ${r.definition.strategy}  ${r.definition.targets.map((t) => `${t.model}${t.node ? `@${t.node}` : ""}${r.definition.strategy === "weighted" ? `:${t.weight}` : ""}`).join(", ")}${r.scope === "global" ? "  (gateway-wide)" : ""}`;

export const routeCommands: Record<string, Command> = {
  "route set": (argv) => {
    const { values, workspaceId } = parseScoped(argv, { file: { type: "string" } }, []);
    if (!values.file) throw new UsageError("route set needs --file route.json");
    let definition: unknown;
    try {
      definition = JSON.parse(readFileSync(values.file, "utf8"));
    } catch (err) {
      throw new UsageError(`--file ${values.file}: ${(err as Error).message}`);
    }
    return async () => {
      if (workspaceId) await requireWorkspace(workspaceId);
      const json = await setRoute(workspaceId, definition, cliActor());
      return { json, text: `Route ${line(json)}`, asJson: values.json };
    };
  },
  "route list": (argv) => {
    const { values, workspaceId } = parseScoped(argv, {}, []);
    return async () => {
      if (workspaceId) await requireWorkspace(workspaceId);
      const routes = await listRoutes(workspaceId);
      return { json: { object: "list", data: routes }, text: routes.length ? routes.map(line).join("\n") : "No routes.", asJson: values.json };
    };
  },
  "route show": (argv) => {
    const { values, args, workspaceId } = parseScoped(argv, {}, ["NAME"]);
    const name = args[0]!;
    return async () => {
      if (workspaceId) await requireWorkspace(workspaceId);
      const json = await showRoute(workspaceId, name);
      return { json, text: JSON.stringify(json.definition, null, 2), asJson: values.json };
    };
  },
  "route remove": (argv) => {
    const { values, args, workspaceId } = parseScoped(argv, {}, ["NAME"]);
    const name = args[0]!;
    return async () => {
      if (workspaceId) await requireWorkspace(workspaceId);
      await removeRoute(workspaceId, name, cliActor());
      return { json: { name, deleted: true }, text: `Removed route ${name}.`, asJson: values.json };
    };
  },
};
