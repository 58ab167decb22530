import { isMultipart, videoForm } from "@/server/transport/next/forms";
import { v1Route } from "@/server/transport/next/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  // JSON, or a multipart form as the OpenAI SDKs send it.
  POST: async ({ caller, req, json }) => caller.videos.create((isMultipart(req) ? await videoForm(req) : await json()) as never),
  GET: ({ caller, req }) => {
    const q = new URL(req.url).searchParams;
    return caller.videos.list({
      limit: (q.get("limit") ?? undefined) as never,
      after: q.get("after") ?? undefined,
      order: (q.get("order") ?? undefined) as never,
    });
  },
});
