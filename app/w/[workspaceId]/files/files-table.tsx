"use client";
// The workspace's files, newest first, a page at a time, optionally of one purpose: uploads
// through POST /v1/files and the output and error files of batches.
import { LoadMore } from "@/app/_components/load-more";
import { useState } from "react";
import { Card, EmptyState, ErrorState, Loading, SelectField, Table, Td } from "@/app/_components/ui";
import { useTRPC, useTRPCClient } from "@/app/_trpc/client";
import { DeleteFileButton } from "./delete-file-button";
import { FILE_PURPOSES, fileContentHref, formatBytes, formatUnix, isoOf } from "./file-format";
import { useAfterPages } from "./use-after-pages";

const PAGE_SIZE = 50;

export function FilesTable({ workspaceId, canDelete }: { workspaceId: string; canDelete: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const [purpose, setPurpose] = useState("");
  const input = { purpose: purpose || undefined, limit: PAGE_SIZE, order: "desc" as const };
  const { query, rows } = useAfterPages({
    queryKey: [...trpc.files.list.pathKey(), { input, type: "infinite" }],
    fetchPage: (after) => client.files.list.query({ ...input, after }),
  });

  let body;
  if (query.isError && !query.data) body = <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  else if (query.isPending) body = <Loading label="Loading files…" />;
  else if (!rows.length)
    body = (
      <EmptyState title={purpose ? `No files with the purpose ${purpose}.` : "No files yet."}>
        Files uploaded with POST /v1/files, and the output and error files of batches, appear here.
      </EmptyState>
    );
  else
    body = (
      <div className="flex flex-col gap-3">
        <Table caption="Files" head={["File", "Purpose", "Size", "Created", "Expires", ""]}>
          {rows.map((f) => (
            <tr key={f.id} data-testid="file-row" data-file-id={f.id} className="hover:bg-slate-50">
              <Td className="whitespace-normal">
                <span className="block max-w-72 break-all font-medium">{f.filename}</span>
                <span className="block break-all font-mono text-xs text-slate-500">{f.id}</span>
              </Td>
              <Td>
                <code className="text-xs">{f.purpose}</code>
              </Td>
              <Td>
                <span title={`${f.bytes.toLocaleString("en-US")} bytes`}>{formatBytes(f.bytes)}</span>
              </Td>
              <Td>
                <time dateTime={isoOf(f.created_at)}>{formatUnix(f.created_at)}</time>
              </Td>
              <Td>{f.expires_at === undefined ? <span className="text-slate-500">Never</span> : <time dateTime={isoOf(f.expires_at)}>{formatUnix(f.expires_at)}</time>}</Td>
              <Td>
                <div className="flex items-start gap-3">
                  <a
                    href={fileContentHref(workspaceId, f.id)}
                    download
                    aria-label={`Download ${f.filename} (${f.id})`}
                    className="py-1.5 text-sm font-medium text-indigo-700 underline hover:text-indigo-900"
                  >
                    Download
                  </a>
                  {canDelete ? <DeleteFileButton id={f.id} filename={f.filename} /> : null}
                </div>
              </Td>
            </tr>
          ))}
        </Table>
        <LoadMore pages={query} />
        {/* A later page or a refresh failed: the rows already shown stay. */}
        {query.isError ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : null}
      </div>
    );

  return (
    <Card
      title="Files"
      actions={
        <SelectField label="Purpose" value={purpose} onChange={(e) => setPurpose(e.target.value)} className="min-w-44">
          <option value="">All purposes</option>
          {FILE_PURPOSES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </SelectField>
      }
    >
      {body}
    </Card>
  );
}
