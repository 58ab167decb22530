// A key's permissions in the keys table: "all", or the groups it may call, and its models if it
// is limited to some.
import type { KeyView } from "@/server/identity/keys/key-view";

export function KeyPermissionsCell({ keyView }: { keyView: KeyView }) {
  const groups = keyView.permissions?.join(", ") ?? "all";
  const models = keyView.models?.join(", ");
  return (
    <span className="block max-w-48 whitespace-normal" title={models ? `${groups}; models: ${models}` : groups}>
      <span data-testid="key-permissions">{groups}</span>
      {models ? <span className="block truncate text-xs text-slate-500">models: {models}</span> : null}
    </span>
  );
}
