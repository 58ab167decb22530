import { v1Route } from "@/server/transport/next/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  GET: ({ caller, params, req }) => {
    const q = new URL(req.url).searchParams;
    return caller.responses.inputItems({
      id: String(params.id),
      limit: (q.get("limit") ?? undefined) as never,
      order: (q.get("order") ?? undefined) as never,
      after: q.get("after") ?? undefined,
      before: q.get("before") ?? undefined,
    });
  },
});
