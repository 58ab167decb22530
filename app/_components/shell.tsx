"use client";
// The dashboard frame: navigation (a sidebar on wide screens, a menu on small ones), the
// workspace switcher and the user menu. Operator pages are listed only for operators; the
// procedures behind them refuse everyone else anyway.
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { useState } from "react";
import { ApiProvider } from "../_trpc/provider";
import { SignOutButton } from "./sign-out-button";
import { roleName, useWorkspace, WorkspaceStateProvider, type WorkspaceState } from "./workspace-context";

const NAV = [
  { href: "start", label: "Get started" },
  { href: "usage", label: "Usage" },
  { href: "logs", label: "Logs" },
  { href: "keys", label: "API keys" },
  { href: "plans", label: "Plans" },
  { href: "playground", label: "Playground" },
  { href: "videos", label: "Videos" },
  { href: "batches", label: "Batches" },
  { href: "fine-tuning", label: "Fine-tuning" },
  { href: "files", label: "Files" },
  { href: "models", label: "Models" },
  { href: "billing", label: "Billing" },
  { href: "members", label: "Members" },
  { href: "settings", label: "Settings" },
  { href: "webhooks", label: "Webhooks" },
  { href: "routes", label: "Routes" },
  { href: "guardrails", label: "Guardrails" },
  { href: "tools", label: "Tools" },
  { href: "audit", label: "Audit log" },
  { href: "network", label: "Network status" },
];
const OPERATOR_NAV = [
  { href: "nodes", label: "Nodes" },
  { href: "x402", label: "x402 revenue" },
];

function WorkspaceSwitcher() {
  const { workspace, session } = useWorkspace();
  const router = useRouter();
  const pathname = usePathname();
  const section = pathname.split("/")[3] ?? "usage";
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor="workspace-switcher" className="text-xs font-medium uppercase tracking-wide text-slate-500">
        Workspace
      </label>
      <select
        id="workspace-switcher"
        value={workspace.id}
        onChange={(e) => router.push(e.target.value === "new" ? "/workspaces/new" : `/w/${e.target.value}/${section}`)}
        className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
      >
        {session.workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
        <option value="new">+ New workspace…</option>
      </select>
    </div>
  );
}

function NavLinks({ onNavigate }: { onNavigate?: () => void }) {
  const { workspace, session } = useWorkspace();
  const pathname = usePathname();
  const link = (item: { href: string; label: string }) => {
    const href = `/w/${workspace.id}/${item.href}`;
    const active = pathname === href || pathname.startsWith(`${href}/`);
    return (
      <li key={item.href}>
        <Link
          href={href}
          onClick={onNavigate}
          aria-current={active ? "page" : undefined}
          className={`block rounded-md px-3 py-2 text-sm ${active ? "bg-indigo-50 font-semibold text-indigo-700" : "text-slate-700 hover:bg-slate-100"}`}
        >
          {item.label}
        </Link>
      </li>
    );
  };
  return (
    <nav aria-label="Dashboard" className="flex flex-col gap-4">
      <ul className="flex flex-col gap-0.5">{NAV.map(link)}</ul>
      {session.user.isOperator ? (
        <div>
          <p className="px-3 pb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Operator</p>
          <ul className="flex flex-col gap-0.5">{OPERATOR_NAV.map(link)}</ul>
        </div>
      ) : null}
    </nav>
  );
}

export function DashboardShell({ state, children }: { state: WorkspaceState; children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  return (
    <WorkspaceStateProvider value={state}>
      <ApiProvider key={state.workspace.id} workspaceId={state.workspace.id}>
        <div className="min-h-screen lg:grid lg:grid-cols-[15rem_minmax(0,1fr)]">
          <header className="flex items-center justify-between border-b border-slate-200 bg-white px-4 py-3 lg:hidden">
            <span className="font-semibold">Model Gateway</span>
            <button
              type="button"
              aria-expanded={menuOpen}
              aria-controls="mobile-nav"
              onClick={() => setMenuOpen((o) => !o)}
              className="rounded-md border border-slate-300 px-3 py-1.5 text-sm"
            >
              Menu
            </button>
          </header>
          <aside
            id="mobile-nav"
            className={`${menuOpen ? "block" : "hidden"} border-b border-slate-200 bg-white p-4 lg:sticky lg:top-0 lg:block lg:h-screen lg:overflow-y-auto lg:border-r lg:border-b-0`}
          >
            <p className="mb-4 hidden font-semibold lg:block">Model Gateway</p>
            <div className="flex flex-col gap-6">
              <WorkspaceSwitcher />
              <NavLinks onNavigate={() => setMenuOpen(false)} />
              <div className="border-t border-slate-200 pt-4 text-sm">
                <p className="truncate text-slate-600" title={state.session.user.email}>
                  {state.session.user.email}
                </p>
                <p className="text-xs text-slate-500">
                  Role: {roleName(state.workspace)}
                  {state.session.user.isOperator ? " · operator" : ""}
                </p>
                <div className="mt-2">
                  <SignOutButton />
                </div>
              </div>
            </div>
          </aside>
          <main className="mx-auto w-full max-w-6xl p-4 sm:p-6 lg:p-8">{children}</main>
        </div>
      </ApiProvider>
    </WorkspaceStateProvider>
  );
}
