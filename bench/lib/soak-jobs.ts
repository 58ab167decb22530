// The soak's background work: a batch of chat lines (the built-in node) every minute and a
// one-second video every 30 s, created on the instances in turn; `finish` waits for each to end
// and checks it ended complete.
import type { Check } from "./soak-checks";

type Batch = { id: string; status: string; request_counts: { total: number; completed: number; failed: number } };
type Video = { id: string; status: string; error?: { message: string } };

export function startJobs(urls: string[], key: string, lines: number, log: (line: string) => void): { finish: () => Promise<Check[]> } {
  const auth = { authorization: `Bearer ${key}` };
  const batches: { id: string; url: string }[] = [];
  const videos: { id: string; url: string }[] = [];
  const failures: string[] = [];
  let turn = 0;

  async function api<T>(url: string, pathname: string, init: RequestInit = {}): Promise<T> {
    const res = await fetch(`${url}${pathname}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
    if (!res.ok) throw new Error(`${init.method ?? "GET"} ${pathname}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  async function batch(): Promise<void> {
    const url = urls[turn++ % urls.length]!;
    const n = batches.length;
    const body = Array.from({ length: lines }, (_, i) =>
      JSON.stringify({ custom_id: `b${n}-${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "local-chat-sim", messages: [{ role: "user", content: `Batch ${n} line ${i}: say something.` }], max_tokens: 16 } }),
    );
    const form = new FormData();
    form.set("purpose", "batch");
    form.set("file", new Blob([body.join("\n") + "\n"], { type: "application/jsonl" }), `soak-${n}.jsonl`);
    const file = await api<{ id: string }>(url, "/v1/files", { method: "POST", body: form });
    const created = await api<Batch>(url, "/v1/batches", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }) });
    batches.push({ id: created.id, url });
  }

  async function video(): Promise<void> {
    const url = urls[turn++ % urls.length]!;
    const created = await api<Video>(url, "/v1/videos", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "local-video", prompt: `soak video ${videos.length}`, seconds: 1, size: "640x360" }) });
    videos.push({ id: created.id, url });
  }

  const creating = new Set<Promise<void>>();
  const guard = (what: string, p: Promise<void>) => {
    const tracked = p.catch((err: Error) => void failures.push(`${what}: ${err.message}`));
    creating.add(tracked);
    void tracked.finally(() => creating.delete(tracked));
  };
  guard("batch", batch());
  guard("video", video());
  const batchTimer = setInterval(() => guard("batch", batch()), 60_000);
  const videoTimer = setInterval(() => guard("video", video()), 30_000);

  return {
    finish: async () => {
      clearInterval(batchTimer);
      clearInterval(videoTimer);
      await Promise.all([...creating]); // a job being created as the traffic stopped is waited for too
      const deadline = Date.now() + 5 * 60_000;
      const ended: Batch[] = [];
      for (const b of batches) {
        for (;;) {
          const got = await api<Batch>(b.url, `/v1/batches/${b.id}`);
          if (["completed", "failed", "expired", "cancelled"].includes(got.status) || Date.now() > deadline) {
            ended.push(got);
            break;
          }
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      const doneVideos: Video[] = [];
      for (const v of videos) {
        for (;;) {
          const got = await api<Video>(v.url, `/v1/videos/${v.id}`);
          if (got.status === "completed" || got.status === "failed" || Date.now() > deadline) {
            doneVideos.push(got);
            break;
          }
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      log(`jobs ended: ${ended.length} batches, ${doneVideos.length} videos`);
      const badBatches = ended.filter((b) => b.status !== "completed" || b.request_counts.completed !== lines || b.request_counts.failed !== 0);
      const badVideos = doneVideos.filter((v) => v.status !== "completed");
      return [
        {
          name: "every batch ended completed, every line answered",
          ok: badBatches.length === 0 && ended.length > 0 && !failures.some((f) => f.startsWith("batch")),
          detail: `${ended.length} batches of ${lines} lines: ${badBatches.length} not complete${badBatches.length ? ` (${badBatches.map((b) => `${b.id} ${b.status} ${b.request_counts.completed}/${b.request_counts.total}`).join(", ")})` : ""}${failures.length ? `; ${failures.join("; ")}` : ""}`,
        },
        {
          name: "every video ended completed",
          ok: badVideos.length === 0 && doneVideos.length > 0 && !failures.some((f) => f.startsWith("video")),
          detail: `${doneVideos.length} videos: ${badVideos.length} not completed${badVideos.length ? ` (${badVideos.map((v) => `${v.id} ${v.status} ${v.error?.message ?? ""}`).join(", ")})` : ""}`,
        },
      ];
    },
  };
}
