// Cloud nodes (azure, bedrock, vertex) as the registry keeps them: settings checked when added,
// credentials sealed (never in a view or an audit event), the outbound guard's rules on their
// address, one auth object per node kept across registry reloads, and a node whose credentials
// cannot be read left out without taking the other nodes down.
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { seal } from "../../server/infra/secret-box";
import { GatewayError } from "../../server/kernel/errors";
import { nodeTarget } from "../../server/providers/node-target";
import { getRoutableNodes, invalidateNodes } from "../../server/routing/nodes/node-registry";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { updateNode } from "../../server/routing/nodes/update-node";

const added: string[] = [];
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY-cloud-nodes";
const base = { city: "Dublin", country: "IE", discover: false } as const;

afterAll(async () => {
  for (const id of added) await removeNode(id).catch(() => undefined);
});

async function refusal(input: Parameters<typeof addNode>[0]): Promise<GatewayError> {
  const err = await addNode(input).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

describe("cloud nodes", () => {
  it("keeps a cloud node's settings, seals its credentials, and never shows or audits them", async () => {
    const { node } = await addNode({ ...base, name: "cloud-sealed", wire: "bedrock", url: "http://127.0.0.1:9", cloud: { region: "eu-west-1" }, credentials: { access_key_id: "AKIDCLOUDNODES", secret_access_key: SECRET } });
    added.push(node.id);
    expect(node).toMatchObject({ wire: "bedrock", cloud: { region: "eu-west-1" }, hasCredentials: true, hasApiKey: false });
    expect(JSON.stringify(node)).not.toContain(SECRET);
    const row = await db.node.findUniqueOrThrow({ where: { id: node.id } });
    expect(row.credentialsEncrypted).toBeTruthy();
    expect(row.credentialsEncrypted).not.toContain(SECRET);
    expect(row.credentialsEncrypted).not.toContain("AKIDCLOUDNODES");
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "node.add", targetId: node.id } });
    expect(JSON.stringify(audit)).not.toContain(SECRET);
  });

  it("refuses cloud settings on a node that is not a cloud's, a settings typo, and an address the outbound guard refuses", async () => {
    expect((await refusal({ ...base, name: "cloud-bad-1", url: "http://127.0.0.1:9/v1", cloud: { region: "us-east-1" } })).param).toBe("wire");
    const typo = await addNode({ ...base, name: "cloud-bad-2", wire: "bedrock", url: "http://127.0.0.1:9", cloud: { regoin: "us-east-1" } as never }).catch((e: unknown) => e);
    expect(String(typo)).toMatch(/regoin/);
    const guarded = await refusal({ ...base, name: "cloud-bad-3", wire: "azure", url: "http://10.0.0.5", apiKey: "k" });
    expect(guarded.code).toBe("url_not_allowed");
    // Nothing to authenticate with, or half an Entra application: refused, not added with a discovery error.
    expect((await refusal({ ...base, name: "cloud-bad-4", wire: "azure", url: "http://127.0.0.1:9" })).param).toBe("apiKey");
    expect((await refusal({ ...base, name: "cloud-bad-5", wire: "azure", url: "http://127.0.0.1:9", credentials: { tenant_id: "t", client_id: "c" } })).message).toMatch(/--client-secret/);
    expect((await refusal({ ...base, name: "cloud-bad-6", wire: "bedrock" })).param).toBe("region");
    expect((await refusal({ ...base, name: "cloud-bad-7", wire: "vertex", cloud: { location: "europe-west4" } })).param).toBe("project");
    expect(await db.node.count({ where: { name: { startsWith: "cloud-bad-" } } })).toBe(0);
  });

  it("moving a cloud node: the outbound guard's rules apply, and credentials are never sent to another address unless given again", async () => {
    const { node } = await addNode({ ...base, name: "cloud-move", wire: "vertex", url: "http://127.0.0.1:9", cloud: { project: "move-project", location: "us-east5" }, apiKey: "AQ.move" });
    added.push(node.id);
    expect((await updateNode({ id: node.id, url: "http://10.0.0.7", apiKey: "AQ.move" }).catch((e: unknown) => e)) as GatewayError).toMatchObject({ code: "url_not_allowed" });
    const withCredentials = await addNode({ ...base, name: "cloud-move-2", wire: "bedrock", url: "http://127.0.0.1:9", cloud: { region: "us-east-1" }, credentials: { access_key_id: "a", secret_access_key: "b" } });
    added.push(withCredentials.node.id);
    expect((await updateNode({ id: withCredentials.node.id, url: "http://127.0.0.1:10" }).catch((e: unknown) => e)) as GatewayError).toMatchObject({ code: "credentials_required" });
    expect((await db.node.findUniqueOrThrow({ where: { id: withCredentials.node.id } })).baseUrl).toBe("http://127.0.0.1:9");
  });

  it("keeps one auth object per node across registry reloads, and leaves out a node whose credentials cannot be read", async () => {
    const { node } = await addNode({ ...base, name: "cloud-reload", wire: "azure", url: "http://127.0.0.1:9", apiKey: "azure-key-reload" });
    added.push(node.id);
    const broken = await addNode({ ...base, name: "cloud-broken", wire: "bedrock", url: "http://127.0.0.1:9", cloud: { region: "us-east-1" }, credentials: { access_key_id: "a", secret_access_key: "b" } });
    added.push(broken.node.id);
    // Credentials sealed over text that is not the credentials' JSON: the node cannot be used.
    await db.node.update({ where: { id: broken.node.id }, data: { credentialsEncrypted: seal("not json") } });
    invalidateNodes();
    const first = (await getRoutableNodes()).find((n) => n.id === node.id)!;
    invalidateNodes();
    const nodes = await getRoutableNodes();
    const second = nodes.find((n) => n.id === node.id)!;
    expect(second.headers).toEqual({ "api-key": "azure-key-reload" });
    expect(second.headers).toBe(first.headers);
    expect(nodes.some((n) => n.id === broken.node.id)).toBe(false);
    const row = await db.node.findUniqueOrThrow({ where: { id: node.id } });
    expect(nodeTarget(row).headers).toBe(first.headers);
  });
});
