// Where to go after signing in: only a path on this site. Anything that resolves to another
// origin ("//evil.example", "/\evil.example", "/%09/evil.example", "https://…") would make a
// sign-in link an open redirect, so it falls back to the dashboard.
const BASE = "http://gateway.invalid";

export function callbackPath(raw: string | undefined, fallback = "/dashboard"): string {
  if (!raw || !raw.startsWith("/")) return fallback;
  let resolved: URL;
  try {
    resolved = new URL(raw, BASE);
  } catch {
    return fallback;
  }
  if (resolved.origin !== BASE) return fallback;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
