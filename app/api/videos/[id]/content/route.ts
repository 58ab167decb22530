// A workspace's video for the dashboard's player and its Download link: GET /v1/videos/{id}/content
// as the signed-in member (next/member-download.ts); the <video> element asks for byte ranges.
import { contract } from "@/server/contract";
import type { AnyOperation } from "@/server/contract/operation";
import { memberDownload } from "@/server/transport/next/member-download";

export const dynamic = "force-dynamic";

export const { GET, HEAD } = memberDownload(contract.videos.content as AnyOperation, "video", (id, range) => ({ id, range }));
