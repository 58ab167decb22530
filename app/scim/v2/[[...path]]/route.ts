// /scim/v2: SCIM 2.0 provisioning of a workspace's members and groups (server/transport/next/scim-handler.ts).
import { scimHandlers } from "@/server/transport/next/scim-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = scimHandlers;
