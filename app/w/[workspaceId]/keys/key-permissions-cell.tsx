// A key's permissions in the keys table, under its plan: "all", or the groups it may call, and its
// models and MCP tools if it is limited to some.
import type { KeyView } from "@/server/identity/keys/key-view";

export function KeyPermissionsCell({ keyView }: { keyView: KeyView }) {
  const groups = keyView.permissions?.join(", ") ?? "all";
  const models = keyView.models?.join(", ");
  const tools = keyView.tools?.join(", ");
  const title = [groups, models && `models: ${models}`, tools && `tools: ${tools}`].filter(Boolean).join("; ");
  return (
    <span className="mt-1 block max-w-40 whitespace-normal text-xs text-slate-600" title={title}>
      permissions: <span data-testid="key-permissions">{groups}</span>
      {models ? <span className="block truncate text-slate-500">models: {models}</span> : null}
      {tools ? <span className="block truncate text-slate-500">tools: {tools}</span> : null}
    </span>
  );
}
