// The little of oidc-provider (which ships no types) the test identity provider uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  type Ctx = {
    oidc: {
      provider: { Grant: new (init: { clientId: string; accountId: string }) => Grant };
      client?: { clientId: string };
      session?: { accountId: string };
    };
  };
  type Grant = { addOIDCScope(scope: string): void; save(): Promise<string> };

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & {
      findAccount?: (ctx: Ctx, sub: string) => { accountId: string; claims: () => Record<string, unknown> };
      loadExistingGrant?: (ctx: Ctx) => Promise<Grant>;
    });
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
