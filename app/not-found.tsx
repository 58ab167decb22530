import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col items-center justify-center gap-4 p-6 text-center">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="text-slate-600">This page does not exist, or you are not a member of the workspace it belongs to.</p>
      <Link href="/dashboard" className="font-medium text-indigo-700 underline">
        Go to your dashboard
      </Link>
    </main>
  );
}
