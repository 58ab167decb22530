"use client";
import { createContext, useContext } from "react";
import type { DashboardSession } from "@/server/transport/next/dashboard-session";
import type { MyWorkspace } from "@/server/identity/workspaces/my-workspaces";
import type { Permission } from "@/server/identity/workspaces/permissions";

export type WorkspaceState = { workspace: MyWorkspace; session: DashboardSession };

const WorkspaceContext = createContext<WorkspaceState | null>(null);
export const WorkspaceStateProvider = WorkspaceContext.Provider;

/**
 * Whether the signed-in member holds `permission` in this workspace: the permissions the server
 * resolved for their role or custom role. For what to show only; the procedures check again.
 */
export const may = (workspace: { permissions: readonly string[] }, permission: Permission): boolean => workspace.permissions.includes(permission);

/** How the dashboard names the member's role: their custom role's name, or the built-in role. */
export const roleName = (workspace: { role: string; customRole: { name: string } | null }): string => workspace.customRole?.name ?? workspace.role;

/** The workspace the page shows, the signed-in user's role in it, and the user. */
export function useWorkspace(): WorkspaceState {
  const state = useContext(WorkspaceContext);
  if (!state) throw new Error("useWorkspace outside a workspace page");
  return state;
}
