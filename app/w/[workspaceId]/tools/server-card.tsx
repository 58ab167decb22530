"use client";
// One MCP server as the workspace sees it: whose it is, where it is and how it is reached, whether
// it answered when last listed (and why not), its price per call, and its tools under the names
// /mcp offers them, each with its price (editable in place by owners and admins for the
// workspace's own servers), then its prompts and resources.
import type { McpServerView } from "@/server/mcp/registry/registry-view";
import { Badge, Card, Table, Td } from "@/app/_components/ui";
import { RemoveServerButton } from "./remove-server-button";
import { ToolPrice } from "./tool-price";
import { perCall } from "./tools-format";

const DOT = { up: "bg-green-500", down: "bg-red-500", unknown: "bg-slate-400" } as const;
const AUTH = { none: "none", header: "headers", oauth: "OAuth client credentials" } as const;

function when(seconds: number | null): string {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "never";
}

export function ServerCard({ server: s, mayManage }: { server: McpServerView; mayManage: boolean }) {
  const own = s.scope === "workspace";
  return (
    <Card
      className="min-w-0"
      title={
        <span className="flex flex-wrap items-center gap-2">
          <code className="font-mono">{s.name}</code>
          <Badge tone={own ? "indigo" : "slate"}>{own ? "this workspace" : "gateway-wide"}</Badge>
          <span className="inline-flex items-center gap-1 text-sm font-normal text-slate-600" data-testid="server-status">
            <span className={`size-2 rounded-full ${DOT[s.status]}`} aria-hidden />
            {s.status}
          </span>
        </span>
      }
      actions={mayManage && own ? <RemoveServerButton name={s.name} /> : null}
    >
      <div className="flex flex-col gap-4" data-testid="mcp-server" data-server-name={s.name}>
        {s.description ? <p className="text-sm text-slate-600">{s.description}</p> : null}
        {s.status === "down" && s.last_error ? (
          <p role="note" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800" data-testid="server-error">
            {s.last_error}
          </p>
        ) : null}
        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
          <dt className="font-medium text-slate-700">URL</dt>
          <dd className="break-all font-mono text-xs leading-5">{s.url}</dd>
          <dt className="font-medium text-slate-700">Transport</dt>
          <dd>{s.transport === "sse" ? "HTTP+SSE" : "Streamable HTTP"}</dd>
          <dt className="font-medium text-slate-700">Authentication</dt>
          <dd>
            {AUTH[s.auth.kind]}
            {s.auth.header_names?.length ? <span className="text-slate-500"> ({s.auth.header_names.join(", ")})</span> : null}
          </dd>
          <dt className="font-medium text-slate-700">Price per call</dt>
          <dd className="tabular-nums" data-testid="server-price">
            {perCall(s.price_per_call)}
          </dd>
          <dt className="font-medium text-slate-700">Tools listed</dt>
          <dd>{when(s.checked_at)}</dd>
        </dl>
        {s.tools.length ? (
          <Table caption={`Tools of ${s.name}`} head={["Tool", "Description", "Price"]}>
            {s.tools.map((t) => (
              <tr key={t.name} data-testid="mcp-tool" data-tool-name={t.name}>
                <Td>
                  <code className="font-mono text-xs">{t.qualified_name}</code>
                </Td>
                <Td className="whitespace-normal text-slate-600">{t.description ?? ""}</Td>
                <Td>
                  <ToolPrice server={s.name} tool={t.name} qualifiedName={t.qualified_name} price={t.price_per_call} own={s.tool_prices[t.name]} editable={mayManage && own} />
                </Td>
              </tr>
            ))}
          </Table>
        ) : (
          <p className="text-sm text-slate-500">{s.checked_at ? "It offers no tools." : "Its tools are not listed yet: refresh once it answers."}</p>
        )}
        {s.prompts.length || s.resources.length ? (
          <div className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-slate-600">
            {s.prompts.length ? (
              <p>
                Prompts:{" "}
                {s.prompts.map((p) => (
                  <code key={p.name} className="mr-2 font-mono text-xs">
                    {p.qualified_name}
                  </code>
                ))}
              </p>
            ) : null}
            {s.resources.length ? (
              <p>
                Resources:{" "}
                {s.resources.map((r) => (
                  <code key={r.uri} className="mr-2 font-mono text-xs">
                    {r.uri}
                  </code>
                ))}
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
    </Card>
  );
}
