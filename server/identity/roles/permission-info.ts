// What each permission allows, in words: the role editor shows it beside each checkbox, and the
// CLI's `role list` prints it. The `Record` type makes a new permission fail the build until it is
// described here.
import type { Permission } from "../workspaces/permissions";

export const PERMISSION_INFO: Record<Permission, string> = {
  "workspace.view": "See the workspace, its models, usage, videos and members.",
  "workspace.use": "Act in the workspace at all: leave it, run an operation from the dashboard, test a guardrail.",
  "workspace.rename": "Rename the workspace.",
  "models.call": "Spend credits from the dashboard: playground chats, video jobs.",
  "keys.create": "Create API keys and revoke the keys one created.",
  "keys.manage": "Revoke any key of the workspace and put keys on plans.",
  "billing.view": "See the balance and the ledger of credits and charges.",
  "plans.manage": "Create, change and delete plans; revoke sessions; trust identity providers.",
  "logs.bodies": "Read captured request and answer bodies; turn capture on or off.",
  "cache.manage": "Change the response cache's settings and clear its entries.",
  "members.manage": "Invite people, change roles, remove members.",
  "audit.view": "Read the audit log.",
  "roles.manage": "Create, change and delete the workspace's custom roles.",
  "routes.manage": "Set routes (virtual models).",
  "guardrails.manage": "Define, attach and remove guardrails.",
  "mcp.manage": "Register, price and remove MCP servers; allow ad-hoc servers.",
  "webhooks.manage": "Register, change and remove webhooks.",
  "sso.manage": "Single sign-on, its domains and SCIM provisioning (owners only).",
};
