"use client";
import { createContext, useContext } from "react";
import type { DashboardSession } from "@/server/transport/next/dashboard-session";
import type { MyWorkspace } from "@/server/identity/workspaces/my-workspaces";

export type WorkspaceState = { workspace: MyWorkspace; session: DashboardSession };

const WorkspaceContext = createContext<WorkspaceState | null>(null);
export const WorkspaceStateProvider = WorkspaceContext.Provider;

/** The workspace the page shows, the signed-in user's role in it, and the user. */
export function useWorkspace(): WorkspaceState {
  const state = useContext(WorkspaceContext);
  if (!state) throw new Error("useWorkspace outside a workspace page");
  return state;
}
