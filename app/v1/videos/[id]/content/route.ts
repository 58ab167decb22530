import { v1Route } from "@/server/transport/next/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  GET: ({ caller, params, req }) =>
    caller.videos.content({
      id: String(params.id),
      variant: (new URL(req.url).searchParams.get("variant") ?? undefined) as never,
      range: req.headers.get("range") ?? undefined,
    }),
});
