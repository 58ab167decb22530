// A workspace's file for the dashboard's Download links (a batch's input, output and error files
// among them): GET /v1/files/{file_id}/content as the signed-in member (next/member-download.ts).
import { contract } from "@/server/contract";
import type { AnyOperation } from "@/server/contract/operation";
import { memberDownload } from "@/server/transport/next/member-download";

export const dynamic = "force-dynamic";

export const { GET, HEAD } = memberDownload(contract.files.content as AnyOperation, "file", (id, range) => ({ file_id: id, range }));
