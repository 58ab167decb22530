import { v1Route } from "@/server/transport/next/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  POST: ({ caller, params }) => caller.responses.cancel({ id: String(params.id) }),
});
