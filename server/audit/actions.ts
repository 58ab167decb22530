// Every action the audit log records, with what its `changes` hold; docs/AUDIT.md lists them for
// readers. An action is `<target type>.<verb>`, so a filter by prefix ("key.") finds one kind of
// target. A new kind of change adds its name here first: recordAudit takes only these.
export const AUDIT_ACTIONS = {
  "key.create": "An API key was created: name, plan, spend limit, expiry, permissions, models (never its secret).",
  "key.update": "A key was put on another plan (or none): plan.",
  "key.revoke": "A key was revoked: revoked_at.",
  "member.role_change": "A member's role changed: role.",
  "member.remove": "A member was removed (or left: `left` is true); their keys were revoked with them.",
  "invitation.create": "An invitation was made: role, email, expires_at (never the link's token).",
  "invitation.revoke": "A pending invitation was withdrawn.",
  "plan.create": "A plan was created: its fields.",
  "plan.update": "A plan changed: the fields that changed.",
  "plan.delete": "A plan was deleted: its fields before.",
  "session.revoke": "A session token was revoked: revoked_at (the session's plan and subject as the target).",
  "session.revoke_subject": "Every alive session of an end user was revoked: revoked (how many).",
  "issuer.add": "An OIDC issuer became trusted: issuer, jwks_url, audience, claims, default plan.",
  "issuer.remove": "A trusted issuer was removed: its fields before.",
  "workspace.create": "The workspace was opened: name, owner (its first credits are a credits.add).",
  "workspace.rename": "The workspace was renamed: name.",
  "workspace.limits": "The workspace's default limits changed: rpm, tpm, concurrency.",
  "credits.add": "Credits were added: amount, note, balance.",
  "node.add": "(gateway-wide) A node was added: name, url, wire, region, weight, api_key as [secret].",
  "node.update": "(gateway-wide) A node changed: the fields that changed, api_key as [secret].",
  "node.remove": "(gateway-wide) A node was removed: its fields before.",
  "model.price": "(gateway-wide) A model was priced: the prices per 1M tokens that changed.",
  "route.set": "A route (virtual model) was created or changed: the fields that changed (a gateway-wide one has no workspace).",
  "route.remove": "A route was removed: its fields before.",
  "guardrail.add": "A guardrail was added: its definition (a gateway-wide one has no workspace).",
  "guardrail.update": "A guardrail's definition was changed: the fields that changed.",
  "guardrail.attach": "A guardrail was attached to the workspace, a plan or a key (`attached_to`: which).",
  "guardrail.detach": "A guardrail was detached from the workspace, a plan or a key.",
  "guardrail.remove": "A guardrail was removed, with its attachments: its definition.",
  "mcp_server.add": "An MCP server was registered: name, url, transport, auth_kind, price_per_call, description, auth as [secret] (a gateway-wide one has no workspace).",
  "mcp_server.update": "An MCP server was registered again under its name: the fields that changed, auth as [secret].",
  "mcp_server.remove": "An MCP server was removed: its fields before.",
  "mcp_server.price": "A price per call of an MCP server's tool was set or cleared: tool_prices.<tool>.",
  "workspace.mcp_adhoc": "Whether the workspace's callers may use MCP servers it has not registered changed: mcp_adhoc_servers.",
  "settings.credits_help": "(gateway-wide) The text about getting credits changed: text.",
  // The workspace's webhooks (the signing secret as [secret], never its value) and its capture of
  // request and answer bodies.
  "webhook.create": "A webhook was registered: url, events, threshold, secret as [secret].",
  "webhook.update": "A webhook changed: the fields that changed.",
  "webhook.delete": "A webhook was removed: its fields before.",
  "webhook.rotate_secret": "A webhook's signing secret was replaced: secret as [secret].",
  "cache.update": "Response cache settings changed: the workspace's default_on, ttl_seconds, max_ttl_seconds, price_fraction, sampling, or a key's or plan's default_on and own_scope.",
  "cache.clear": "Response cache entries were removed: model or key when limited to one, removed (how many).",
  "capture.update": "Body capture changed: the workspace's enabled, max_bytes, redact_patterns, or a key's capture (true, false, null: the workspace's).",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as AuditAction[];
