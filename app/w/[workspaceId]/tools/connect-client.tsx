"use client";
// How a client reaches the tools: the gateway's /mcp URL (Streamable HTTP, an API key of the
// workspace as Bearer) and Claude Code's command to add it, with a copy button.
import { useEffect, useState } from "react";
import { Button, Card } from "@/app/_components/ui";
import { copyMessage, useCopy } from "@/app/_components/use-copy";

export function ConnectClient() {
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);
  const { copied, copy } = useCopy();
  const url = `${origin}/mcp`;
  const command = `claude mcp add --transport http gateway ${url} --header "Authorization: Bearer $KEY"`;
  return (
    <Card title="Connect a client">
      <p className="text-sm text-slate-600">
        MCP URL: <code data-testid="mcp-url" className="rounded bg-slate-100 px-1 font-mono">{url}</code>. Any MCP client that speaks Streamable HTTP connects with an API key of this workspace as a Bearer token, and sees the tools below as <code className="font-mono">server__tool</code>. With Claude Code ($KEY holding the key):
      </p>
      <pre data-testid="mcp-command" className="mt-3 max-w-full overflow-x-auto rounded-md bg-slate-900 p-4 text-xs text-slate-100">
        {command}
      </pre>
      <div className="mt-2 flex items-center gap-3">
        <Button variant="secondary" onClick={() => void copy(command)}>
          Copy
        </Button>
        <span aria-live="polite" className="text-xs text-slate-600">
          {copyMessage(copied, "command")}
        </span>
      </div>
    </Card>
  );
}
