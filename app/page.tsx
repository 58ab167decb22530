import Link from "next/link";
import { redirect } from "next/navigation";
import { dashboardSession } from "@/server/transport/next/dashboard-session";

export const dynamic = "force-dynamic";

export default async function Home() {
  if (await dashboardSession()) redirect("/dashboard");
  return (
    <main className="mx-auto flex min-h-screen max-w-2xl flex-col justify-center gap-6 p-6">
      <h1 className="text-3xl font-semibold tracking-tight">Model Gateway</h1>
      <p className="text-slate-700">
        An OpenAI-compatible gateway. Point any OpenAI client at <code className="rounded bg-slate-100 px-1">/v1</code> with a workspace API
        key; manage keys, members, credits, usage and video jobs here.
      </p>
      <div className="flex flex-wrap gap-3">
        <Link href="/signin" className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500">
          Sign in
        </Link>
        <Link href="/signup" className="rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium hover:bg-slate-50">
          Create an account
        </Link>
      </div>
      <ul className="list-inside list-disc text-sm text-slate-600">
        <li>
          <a className="underline" href="/health">
            /health
          </a>
          : liveness
        </li>
        <li>
          <code>GET /v1/models</code>: the model catalog with prices
        </li>
        <li>
          <code>GET /v1/network/status</code>: nodes and regions online
        </li>
      </ul>
    </main>
  );
}
