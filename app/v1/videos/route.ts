import { v1Route } from "@/server/http/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  POST: async ({ caller, json }) => caller.videos.create((await json()) as never),
  GET: ({ caller, req }) => {
    const q = new URL(req.url).searchParams;
    return caller.videos.list({
      limit: (q.get("limit") ?? undefined) as never,
      after: q.get("after") ?? undefined,
      order: (q.get("order") ?? undefined) as never,
    });
  },
});
