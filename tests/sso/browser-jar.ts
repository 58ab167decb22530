// A minimal browser for the protocol tests: fetch without following redirects, a cookie jar per
// host and port (the gateway and the test identity providers all live on 127.0.0.1).
export class Jar {
  private readonly cookies = new Map<string, Map<string, string>>();

  private of(url: string): Map<string, string> {
    const host = new URL(url).host;
    let m = this.cookies.get(host);
    if (!m) this.cookies.set(host, (m = new Map()));
    return m;
  }

  get(url: string, name: string): string | undefined {
    return this.of(url).get(name);
  }

  set(url: string, name: string, value: string): void {
    this.of(url).set(name, value);
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const jar = this.of(url);
    const headers = new Headers(init.headers);
    if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [kv, ...attrs] = c.split(";");
      const i = kv!.indexOf("=");
      const name = kv!.slice(0, i).trim();
      const value = kv!.slice(i + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  }
}

export const locationOf = (res: Response, base: string): string => {
  const loc = res.headers.get("location");
  if (!loc) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(loc, base).href;
};
