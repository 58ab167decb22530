// The demo workspace an empty database starts with (`npm start`), with credits and a key.
import { db } from "../infra/db/client";
import { X402_WORKSPACE_ID } from "../kernel/x402-workspace";
import { createWorkspaceTx } from "./create-workspace";

/**
 * On an empty database, creates the demo workspace with credits and a key. Returns the secret
 * when it was created now (it is shown once), otherwise null. The advisory lock keeps two
 * starting processes from both creating one.
 */
export async function ensureDemoWorkspace(credits: string): Promise<{ workspaceId: string; secret: string } | null> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(7272001)`;
    if ((await tx.workspace.count({ where: { id: { not: X402_WORKSPACE_ID } } })) > 0) return null;
    const { workspace, apiKey } = await createWorkspaceTx(tx, {
      name: "Demo workspace",
      credits,
      withKey: true,
      keyName: "demo",
    });
    return { workspaceId: workspace.id, secret: apiKey!.secret };
  });
}
